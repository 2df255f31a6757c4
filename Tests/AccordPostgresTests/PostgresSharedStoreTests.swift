import Foundation
import Testing
import AccordCRDT
import AccordPostgres
import AccordStore

/// Document stores of several nodes on one schema (``SharedStorage``): appends from
/// every node land in one document's log, folds run on every node without ever
/// dropping another node's update, and a node follows the others with
/// `sharedChanges(_:after:)`.
@Suite struct PostgresSharedStoreTests {
    static func store(_ database: PostgresTestDatabase, foldEvery entries: Int = 0) throws -> DocumentStore {
        let adapter = try PostgresStorageAdapter(
            url: database.url, schema: database.schema(), sharedLogs: [DocumentStore.sharedLogCategory])
        var options = DocumentStore.Options()
        options.compactionMaxEntries = entries
        options.compactInBackground = false
        options.flushDelay = nil
        options.shared = SharedStorage(documentLock: try PostgresDocumentLock(url: database.url, schema: database.schema()))
        return DocumentStore(storage: SerialStorage(adapter), options: options)
    }

    /// Two nodes write one document at once, each folding its log every few entries
    /// (so folds race the other node's appends and folds). A third node loads every
    /// update of both, and a node that loaded early catches up with what it missed.
    @Test func twoNodesWriteAndFoldOneDocumentAndLoseNothing() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let nodes = try [Self.store(database, foldEvery: 6), Self.store(database, foldEvery: 6)]
        try nodes[0].create("shared")
        let early = try Self.store(database)
        let (follower, position) = try early.loadShared("shared")
        #expect(try follower.getText("t").string == "")

        let edits = 80
        let writers = [Doc(), Doc()]
        let failures = NoticeLog()
        let handed = Unchecked((writers, nodes))
        DispatchQueue.concurrentPerform(iterations: 2) { node in
            let doc = handed.value.0[node]
            let store = handed.value.1[node]
            let subscription = doc.onUpdate { update, _ in
                do { try store.append(update, to: "shared", isLocal: false) } catch { failures.fail("append: \(error)") }
            }
            for edit in 0..<edits {
                do {
                    try doc.getText("t").insert(0, node == 0 ? "a" : "b")
                    if edit % 3 == 2 { try store.flush() }
                } catch {
                    failures.fail("node \(node) edit \(edit): \(error)")
                }
            }
            do { try store.flush() } catch { failures.fail("flush: \(error)") }
            subscription.cancel()
        }
        #expect(failures.failures.isEmpty, "\(failures.failures)")

        let merged = Doc()
        for writer in writers { try merged.applyUpdate(writer.encodeStateAsUpdate()) }
        let expected = try merged.getText("t").string
        #expect(expected.filter { $0 == "a" }.count == edits && expected.filter { $0 == "b" }.count == edits)

        let fresh = try Self.store(database)
        #expect(try fresh.loadShared("shared").doc.getText("t").string == expected)

        // The early reader catches up from its position, through whatever was folded.
        let changes = try early.sharedChanges("shared", after: position)
        for update in changes.updates { try follower.applyUpdate(update) }
        #expect(try follower.getText("t").string == expected)
        #expect(changes.through > position)
        // Nothing new after that: an empty read at the same position.
        let again = try early.sharedChanges("shared", after: changes.through)
        #expect(again.updates.isEmpty && again.through == changes.through)
        // Some fold ran (otherwise this test proved nothing about folds).
        #expect(try nodes[1].metadata("shared").snapshotSequence > 0 || fresh.metadata("shared").snapshotSequence > 0)
    }

    /// The fold lock is exclusive across nodes: while one node holds a document's, the
    /// other's fold of it gives up (`.superseded`) and changes nothing.
    @Test func aFoldWaitsForTheOtherNodesFoldLock() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let node = try Self.store(database)
        try node.create("d")
        let doc = Doc()
        let subscription = doc.onUpdate { update, _ in _ = try? node.append(update, to: "d", isLocal: false) }
        try doc.getText("t").insert(0, "hello")
        subscription.cancel()
        try node.flush()

        let other = try PostgresDocumentLock(url: database.url, schema: database.schema())
        #expect(try other.tryLock("d"))
        #expect(try node.compact("d") == .superseded)
        #expect(try node.metadata("d").snapshotSequence == 0)
        other.unlock("d")
        #expect(try node.compact("d") != .superseded)
        #expect(try Self.store(database).loadShared("d").doc.getText("t").string == "hello")
    }
}
