import AccordCRDT
import AccordDatabase
import Dispatch
import Foundation
import Testing

@Suite struct ChangeListenerTests {
    @Test func listenersHearCommittedChangesOnTheirQueueAfterTheyAreReadable() async throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        let queue = DispatchQueue(label: "test.listener")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "mine")
        let (heard, continuation) = AsyncStream.makeStream(of: (String?, [String], Int?).self)
        let token = collection.addChangeListener(queue: queue) { change in
            // Durable and readable by the time a listener runs.
            let n = try? change.collection.document(id: "a")?.int(forKey: "n")
            continuation.yield((DispatchQueue.getSpecific(key: key), change.documentIDs, n))
        }
        try fixture.database.inBatch {
            try collection.save(document: MutableDocument(id: "a").setInt(7, forKey: "n"))
            try collection.save(document: MutableDocument(id: "b"))
            try collection.save(document: MutableDocument(id: "a").setInt(7, forKey: "n"))
        }
        var iterator = heard.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.0 == "mine")
        #expect(first.1 == ["a", "b"])
        #expect(first.2 == 7)
        token.remove()
        try collection.save(document: MutableDocument(id: "c"))
        // A removed listener hears nothing more: the next thing the queue runs is ours.
        await withCheckedContinuation { done in queue.async { done.resume() } }
        continuation.finish()
        #expect(await iterator.next() == nil)
    }

    @Test func documentListenersHearOnlyTheirDocument() async throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        let (heard, continuation) = AsyncStream.makeStream(of: String.self)
        let token = collection.addDocumentChangeListener(id: "watched") { continuation.yield($0.documentID) }
        defer { token.remove() }
        try collection.save(document: MutableDocument(id: "other"))
        try collection.save(document: MutableDocument(id: "watched"))
        var iterator = heard.makeAsyncIterator()
        #expect(await iterator.next() == "watched")
    }

    @Test func theAsyncStreamFormHearsLocalChanges() async throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        let changes = collection.changes()
        try collection.save(document: MutableDocument(id: "s"))
        try collection.purge(id: "s")
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.documentIDs == ["s"])
        #expect(await iterator.next()?.documentIDs == ["s"])
    }
}
