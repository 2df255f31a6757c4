import Foundation
import Testing
import AccordCRDT
import AccordPostgres
import AccordStore

/// `appendNext` (``LogNumberingAdapter``): adapters on one schema append to one log at
/// once and each gets back a distinct number, which is where its value landed; a log
/// PostgreSQL does not number is refused without writing anything.
@Suite struct PostgresLogNumberingTests {
    static let listing = StorageCategory("server.owned")

    @Test func concurrentAppendsGetDistinctNumbersWhereTheirValuesLanded() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let schema = database.schema()
        let adapters = try (0..<3).map { _ in
            try PostgresStorageAdapter(url: database.url, schema: schema, sharedLogs: [Self.listing])
        }
        #expect(adapters[0].numbersLogs(in: Self.listing))
        let results = NoticeLog()
        let numbers = NumberLog()
        let shared = Unchecked(adapters)
        DispatchQueue.concurrentPerform(iterations: adapters.count) { writer in
            for index in 0..<40 {
                let value = Array("w\(writer)-\(index)".utf8)
                do {
                    numbers.add(try shared.value[writer].appendNext(Self.listing, key: "ada", value: value), value)
                } catch {
                    results.fail("writer \(writer) append \(index): \(error)")
                }
            }
        }
        #expect(results.failures.isEmpty, "\(results.failures)")
        let entries = try adapters[0].readLog(Self.listing, key: "ada")
        #expect(entries.map(\.sequence) == Array(1...120))
        let returned = numbers.all
        #expect(returned.count == 120 && Set(returned.map(\.0)).count == 120, "every append got its own number")
        for (sequence, value) in returned {
            #expect(entries.first { $0.sequence == sequence }?.value == value)
        }
    }

    @Test func aLogPostgresDoesNotNumberIsRefused() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let adapter = try PostgresStorageAdapter(url: database.url, schema: database.schema())
        #expect(!adapter.numbersLogs(in: Self.listing))
        let error = #expect(throws: AccordError.self) {
            _ = try adapter.appendNext(Self.listing, key: "ada", value: [1])
        }
        #expect(error?.code == .invalidArgument)
        #expect(try adapter.readLog(Self.listing, key: "ada").isEmpty)
    }
}

/// Sequences returned by appends and their values, from several threads.
final class NumberLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(UInt64, [UInt8])] = []
    func add(_ sequence: UInt64, _ value: [UInt8]) { lock.lock(); entries.append((sequence, value)); lock.unlock() }
    var all: [(UInt64, [UInt8])] { lock.lock(); defer { lock.unlock() }; return entries }
}
