import Foundation
import Testing
import AccordCRDT
@testable import AccordPostgres
import AccordStore
import AccordTesting

/// A batch's shared appends: one call at the end of its transaction, logs in key order,
/// and their notices sent by a second transaction behind the commit (PostgreSQL makes
/// every notifying commit wait for the one before it through its WAL flush; see
/// ``PostgresStorageSchema``).
@Suite struct PostgresBatchNoticeTests {
    static let log = StorageCategory("doc.log")
    static let records = StorageCategory("rec")

    /// The plan: everything else first, in its order; then one `append_shared_many` with
    /// the logs sorted by key bytes, each log's entries in the batch's order, its first
    /// sequence as the floor. A batch that truncates a shared log keeps its order (and
    /// the head locks up front) instead.
    @Test func sharedAppendsGoLastInKeyOrder() throws {
        let batch: [StorageOperation] = [
            .append(Self.log, key: "b", sequence: 4, value: [1]),
            .append(Self.log, key: "a", sequence: 9, value: [2]),
            .put(Self.records, key: "k", value: [3]),
            .append(Self.log, key: "b", sequence: 5, value: [4]),
        ]
        let plan = try PostgresStorageAdapter.plan(batch, sharedLogs: [Self.log], writer: [7])
        #expect(plan.calls.map(\.name) == ["put", "append_shared_many"])
        #expect(plan.notifiesAfterCommit)
        let parameters = plan.calls[1].parameters
        #expect(parameters[1] == .bytesArray([Array("a".utf8), Array("b".utf8)]))
        #expect(parameters[2] == .int64Array([9, 4]))
        #expect(parameters[3] == .int64Array([1, 2]))
        #expect(parameters[4] == .bytesArray([[2], [1], [4]]))
        #expect(plan.sharedKeys == [Self.log: [Array("a".utf8), Array("b".utf8)]])

        let folding = try PostgresStorageAdapter.plan(
            batch + [.truncateLog(Self.log, key: "a", through: 3)], sharedLogs: [Self.log], writer: [7])
        #expect(folding.calls.map(\.name) == ["lock_heads", "append_shared", "append_shared", "put", "append_shared", "truncate_log"])
        #expect(!folding.notifiesAfterCommit)

        // Nothing to announce: no second transaction.
        let recordsOnly = try PostgresStorageAdapter.plan([.put(Self.records, key: "k", value: [1])], sharedLogs: [Self.log], writer: [7])
        #expect(recordsOnly.calls.map(\.name) == ["put"] && !recordsOnly.notifiesAfterCommit)

        let backwards = #expect(throws: AccordError.self) {
            _ = try PostgresStorageAdapter.plan(
                [.append(Self.log, key: "a", sequence: 2, value: [1]), .append(Self.log, key: "a", sequence: 2, value: [2])],
                sharedLogs: [Self.log], writer: [7])
        }
        #expect(backwards?.code == .invalidArgument)
    }

    /// Every committed batch is announced once, per log, with its values; a batch that
    /// failed announces nothing, then or with the next batch; and the entries a notice
    /// names are readable when it arrives.
    @Test func noticesFollowTheCommitAndAFailedBatchAnnouncesNothing() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let schema = database.schema()
        let adapter = try PostgresStorageAdapter(url: database.url, schema: schema, sharedLogs: [Self.log])
        // Used only on the listener's thread.
        let reader = Unchecked(try PostgresStorageAdapter(url: database.url, schema: schema, sharedLogs: [Self.log]))
        let notices = NoticeLog()
        let listener = try PostgresListener(url: database.url, channel: schema) { event in
            guard case .notification(let payload) = event, let notice = PostgresLogNotice(payload: payload) else { return }
            // Read on the listener's thread, as soon as the notice is here.
            let readable = (try? reader.value.lastSequence(Self.log, key: notice.key)) ?? 0
            if readable < notice.last { notices.fail("\(notice.key) \(notice.last) announced before it was readable") }
            notices.add(notice)
        }
        defer { listener.stop() }
        try waitFor { listener.isListening }

        try adapter.commit([
            .append(Self.log, key: "b", sequence: 1, value: [1]), .append(Self.log, key: "a", sequence: 1, value: [2]),
            .append(Self.log, key: "b", sequence: 2, value: [3]),
        ])
        // Fails in PostgreSQL (a plain log's order check): nothing of it commits.
        try adapter.commit([.append(Self.records, key: "plain", sequence: 5, value: [0])])
        let failed = #expect(throws: AccordError.self) {
            try adapter.commit([
                .append(Self.log, key: "c", sequence: 1, value: [4]), .append(Self.records, key: "plain", sequence: 3, value: [0]),
            ])
        }
        #expect(failed?.code == .invalidArgument)
        try adapter.commit([.append(Self.log, key: "d", sequence: 1, value: [5])])

        try waitFor { notices.notices.contains { $0.key == "d" } }
        Thread.sleep(forTimeInterval: 0.2)  // anything stray would have come by now
        let seen = notices.notices.sorted { $0.key < $1.key }
        #expect(seen.map(\.key) == ["a", "b", "d"])
        #expect(seen.map(\.values) == [[[2]], [[1], [3]], [[5]]])
        #expect(seen.map(\.first) == [1, 1, 1] && seen.map(\.last) == [1, 2, 1])
        #expect(seen.allSatisfy { $0.writer == adapter.writerID })
        #expect(try adapter.readLog(Self.log, key: "c").isEmpty)
        #expect(notices.failures.isEmpty, "\(notices.failures)")
    }

    /// A batch whose answer was lost is found committed on a new connection; its own
    /// notices may be gone with the old one, so the heads of its logs are announced,
    /// naming no writer (every node reads them, the writer too).
    @Test func aLostAnswerAnnouncesTheHeadsOfItsLogs() async throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let schema = database.schema()
        let proxy = try FaultProxy(targetPort: database.port)
        let adapter = Unchecked(try PostgresStorageAdapter(url: database.url(port: proxy.port), schema: schema, sharedLogs: [Self.log]))
        let notices = NoticeLog()
        let listener = try PostgresListener(url: database.url, channel: schema) { event in
            if case .notification(let payload) = event, let notice = PostgresLogNotice(payload: payload) { notices.add(notice) }
        }
        defer { listener.stop() }
        try waitFor { listener.isListening }
        try adapter.value.commit([.append(Self.log, key: "d", sequence: 1, value: [1])])

        proxy.silence(.serverToClient)
        let commit = Task.detached { try adapter.value.commit([.append(Self.log, key: "d", sequence: 2, value: [2])]) }
        let watcher = try database.connection()
        let deadline = ContinuousClock.now + .seconds(20)
        while try watcher.query("SELECT count(*) FROM \(schema).accord_logs").firstInt64 != 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        proxy.silence(.serverToClient, false)
        proxy.cutAll()
        try await commit.value

        try waitFor { notices.notices.contains { $0.writer == [UInt8](repeating: 0, count: 16) } }
        let hint = notices.notices.first { $0.writer == [UInt8](repeating: 0, count: 16) }
        #expect(hint?.key == "d" && hint?.first == 2 && hint?.last == 2 && hint?.values == nil)
        #expect(try adapter.value.readLog(Self.log, key: "d").map(\.sequence) == [1, 2])
        await proxy.stop()
    }
}
