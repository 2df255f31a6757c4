import Foundation
import Testing
import AccordCRDT
import AccordPostgres
import AccordStore
import AccordTesting

/// A commit that landed in PostgreSQL, but whose answer the connection lost, is found
/// to have landed and is not applied again (an append applied twice would be refused,
/// or worse, a put would be repeated after a later write).
@Suite struct PostgresLostAnswerTests {
    @Test func aCommitWhoseAnswerWasLostIsReportedAsCommittedOnce() async throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let proxy = try FaultProxy(targetPort: database.port)
        let adapter = Unchecked(try PostgresStorageAdapter(url: database.url(port: proxy.port), schema: database.schema()))
        let log = StorageCategory("doc.log")
        try adapter.value.commit([.append(log, key: "d", sequence: 1, value: [1])])

        proxy.silence(.serverToClient)
        let commit = Task.detached { try adapter.value.commit([.append(log, key: "d", sequence: 2, value: [2])]) }
        // The batch arrives and commits; only its answer is swallowed.
        let watcher = try database.connection()
        let deadline = ContinuousClock.now + .seconds(20)
        while try watcher.query("SELECT count(*) FROM \(database.schema()).accord_logs").firstInt64 != 2 {
            #expect(ContinuousClock.now < deadline, "the batch never reached PostgreSQL")
            if ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        proxy.silence(.serverToClient, false)
        proxy.cutAll()

        try await commit.value
        #expect(try adapter.value.readLog(log, key: "d").map(\.sequence) == [1, 2])
        // Later batches go on over the new connection.
        try adapter.value.commit([.append(log, key: "d", sequence: 3, value: [3])])
        #expect(try adapter.value.lastSequence(log, key: "d") == 3)
        await proxy.stop()
    }

    /// With the database unreachable for longer than the retries last, `commit` throws
    /// `POSTGRES_UNAVAILABLE` and nothing of the batch is applied; once it is back, the
    /// same adapter works again.
    @Test func anOutageLongerThanTheRetriesThrowsAndAppliesNothing() async throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let proxy = try FaultProxy(targetPort: database.port)
        let adapter = try PostgresStorageAdapter(url: database.url(port: proxy.port), schema: database.schema())
        let category = StorageCategory("doc.meta")
        try adapter.commit([.put(category, key: "k", value: [1])])

        proxy.refuseNew = true
        proxy.cutAll()
        let error = #expect(throws: AccordError.self) { try adapter.commit([.put(category, key: "k", value: [2])]) }
        #expect(error?.code == .postgresUnavailable)
        let direct = try database.adapter()
        #expect(try direct.read(category, key: "k") == [1])

        proxy.refuseNew = false
        try adapter.commit([.put(category, key: "k", value: [3])])
        #expect(try direct.read(category, key: "k") == [3])
        await proxy.stop()
    }
}

/// Hands a value owned by one test to the one task that uses it while the test waits.
final class Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
