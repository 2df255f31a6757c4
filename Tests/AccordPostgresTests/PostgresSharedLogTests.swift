import Foundation
import Testing
import AccordCRDT
import AccordPostgres
import AccordStore

/// Shared logs (a cluster's document logs): several adapters append to one log at once
/// and PostgreSQL numbers the entries, so none collides, none is lost, numbers are never
/// reused after a truncation, and every commit is announced on the schema's channel.
@Suite struct PostgresSharedLogTests {
    static let log = StorageCategory("doc.log")

    /// Three adapters (three nodes) append batches to one log from three threads, with
    /// multi-log batches in opposite key orders (which would deadlock without the
    /// ordered head locks). Every entry lands exactly once, each writer's entries keep
    /// their order, and the notices cover every sequence exactly once.
    @Test func concurrentWritersAppendToOneLogWithoutCollisions() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let schema = database.schema()
        let adapters = try (0..<3).map { _ in
            try PostgresStorageAdapter(url: database.url, schema: schema, sharedLogs: [Self.log])
        }
        let notices = NoticeLog()
        let listener = try PostgresListener(url: database.url, channel: schema) { event in
            if case .notification(let payload) = event, let notice = PostgresLogNotice(payload: payload) {
                notices.add(notice)
            }
        }
        defer { listener.stop() }
        try waitFor { listener.isListening }

        let batches = 60
        let failures = NoticeLog()
        let shared = Unchecked(adapters)
        DispatchQueue.concurrentPerform(iterations: adapters.count) { writer in
            let adapter = shared.value[writer]
            for batch in 0..<batches {
                // 1-3 entries to "shared", plus one to "other" before or after it. The
                // sequences a writer names collide on purpose: PostgreSQL renumbers them.
                let count = 1 + batch % 3
                var operations = (0..<count).map { entry in
                    StorageOperation.append(
                        Self.log, key: "shared", sequence: UInt64(entry + 1), value: Self.value(writer, batch, entry))
                }
                let other = StorageOperation.append(Self.log, key: "other", sequence: 1, value: Self.value(writer, batch, 9))
                if (writer + batch) % 2 == 0 { operations.append(other) } else { operations.insert(other, at: 0) }
                do {
                    try adapter.commit(operations)
                } catch {
                    failures.fail("writer \(writer) batch \(batch): \(error)")
                }
            }
        }
        #expect(failures.failures.isEmpty, "\(failures.failures)")

        let entries = try adapters[0].readLog(Self.log, key: "shared")
        let expected = adapters.indices.reduce(0) { total, _ in total + (0..<batches).reduce(0) { $0 + 1 + $1 % 3 } }
        #expect(entries.count == expected)
        #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        #expect(Set(entries.map(\.value)).count == expected, "an entry was stored twice")
        for writer in adapters.indices {
            let mine = entries.map(\.value).filter { $0[0] == UInt8(writer) }
            let order = mine.map { Int($0[1]) * 16 + Int($0[2]) }
            #expect(order == order.sorted(), "writer \(writer)'s entries are out of order")
        }
        #expect(try adapters[1].readLog(Self.log, key: "other").count == adapters.count * batches)

        // Every committed sequence of "shared" is announced exactly once.
        try waitFor { notices.covered(key: "shared").count >= expected }
        let announced = notices.covered(key: "shared")
        #expect(announced.sorted() == entries.map(\.sequence), "notices and the log disagree")
        #expect(Set(notices.notices.filter { $0.key == "shared" }.map(\.writer)) == Set(adapters.map(\.writerID)))
    }

    /// A log emptied by a fold continues after its old numbers (a reader that held
    /// position N must never see a new entry numbered at or below N), and a log written
    /// before it was shared continues after the numbers its writer names.
    @Test func numbersAreNeverReusedAfterTruncation() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let plain = try database.adapter()
        try plain.commit([.append(Self.log, key: "d", sequence: 7, value: [1])])
        let shared = try PostgresStorageAdapter(url: database.url, schema: database.schema(), sharedLogs: [Self.log])
        try shared.commit([.append(Self.log, key: "d", sequence: 1, value: [2])])
        #expect(try shared.readLog(Self.log, key: "d").map(\.sequence) == [7, 8])
        try shared.commit([.truncateLog(Self.log, key: "d", through: 8)])
        try shared.commit([.append(Self.log, key: "d", sequence: 1, value: [3])])
        #expect(try shared.readLog(Self.log, key: "d").map(\.sequence) == [9])
        // A writer naming higher numbers (its own count ran ahead) moves the log there.
        try shared.commit([.append(Self.log, key: "d", sequence: 20, value: [4])])
        #expect(try shared.readLog(Self.log, key: "d").map(\.sequence) == [9, 20])
        // Logs that are not shared keep the writer's numbers and the order check.
        try shared.commit([.append(StorageCategory("blob.x"), key: "b", sequence: 5, value: [1])])
        let error = #expect(throws: AccordError.self) {
            try shared.commit([.append(StorageCategory("blob.x"), key: "b", sequence: 3, value: [1])])
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test func noticePayloadsParse() {
        let notice = PostgresLogNotice(payload: "log 0aff 646f632e6c6f67 6e6f746573 3 5")
        #expect(notice?.writer == [0x0A, 0xFF])
        #expect(notice?.category == StorageCategory("doc.log"))
        #expect(notice?.key == "notes")
        #expect(notice?.first == 3 && notice?.last == 5)
        let carried = PostgresLogNotice(payload: "log 0aff 646f632e6c6f67 6e6f746573 3 4 0001,02")
        #expect(carried?.values == [[0, 1], [2]])
        #expect(PostgresLogNotice(payload: "log 0aff 646f632e6c6f67 6e6f746573 3 5 0001,02") == nil, "three entries, two values")
        for bad in ["", "log", "log 0a 00 00 5 3", "log zz 00 00 1 1", "log 0 00 00 1 1", "acl 00 00 00 1 1", "log 00 00 00 x 1"] {
            #expect(PostgresLogNotice(payload: bad) == nil, "\(bad)")
        }
    }

    static func value(_ writer: Int, _ batch: Int, _ entry: Int) -> [UInt8] {
        [UInt8(writer), UInt8(batch), UInt8(entry)]
    }
}

/// Notices and failures collected from other threads.
final class NoticeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [PostgresLogNotice] = []
    private var failed: [String] = []

    func add(_ notice: PostgresLogNotice) { lock.lock(); stored.append(notice); lock.unlock() }
    func fail(_ text: String) { lock.lock(); failed.append(text); lock.unlock() }
    var notices: [PostgresLogNotice] { lock.lock(); defer { lock.unlock() }; return stored }
    var failures: [String] { lock.lock(); defer { lock.unlock() }; return failed }
    func covered(key: String) -> [UInt64] { notices.filter { $0.key == key }.flatMap { Array($0.first...$0.last) } }
}

func waitFor(seconds: Double = 10, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < deadline else { throw AccordError(.storageError, "condition not met in \(seconds) s") }
        Thread.sleep(forTimeInterval: 0.01)
    }
}

