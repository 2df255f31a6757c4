import AccordCRDT
@testable import AccordStore
import AccordTesting
import Testing

/// A document reopened from the same store writes under the client ID it wrote with
/// last when that is safe, so its state vector does not grow by one entry per launch.
@Suite struct ClientLeaseTests {
    let id = DocumentID(rawValue: "notes")!

    private func edit(_ opened: StoredDocument, _ text: String) throws {
        let shared = try opened.doc.getText("t")
        try shared.insert(shared.length, text)
    }

    @Test func aHundredReopensOfOneDocumentAddOneClientID() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/store.sqlite"
        var first: ClientID?
        for cycle in 0..<100 {
            // A new store object each cycle, as after an app restart: the lease is on disk.
            let store = try DocumentStore(path: path)
            let opened = try store.open(id, createIfMissing: true)
            if first == nil { first = opened.doc.clientID }
            #expect(opened.doc.clientID == first, "cycle \(cycle)")
            try edit(opened, "x")
            try opened.close()
            try store.close()
        }
        let store = try DocumentStore(path: path)
        let doc = try store.load(id)
        #expect(doc.stateVector.clocks.count == 1)
        #expect(try doc.getText("t").string == String(repeating: "x", count: 100))
    }

    @Test func anOpenThatWasNeverClosedLeavesNoLeaseToReuse() throws {
        let store = DocumentStore(storage: .inMemory())
        let opened = try store.open(id, createIfMissing: true)
        try edit(opened, "a")
        try opened.close()
        let reused = try store.open(id)
        #expect(reused.doc.clientID == opened.doc.clientID)
        try edit(reused, "b")
        // A crash: the edits may have been sent but are only partly stored; the open ends
        // without a close.
        try store.flush()
        let crashedID = reused.doc.clientID
        _ = consume reused
        let after = try store.open(id)
        #expect(after.doc.clientID != crashedID)
        try after.close()
    }

    @Test func aLeaseWhoseClockDoesNotMatchTheStoredDocumentIsNotReused() throws {
        let store = DocumentStore(storage: .inMemory())
        let opened = try store.open(id, createIfMissing: true)
        try edit(opened, "abc")
        try opened.close()
        // The lease claims more than the store holds under that ID: reusing it would
        // hand out clocks another replica may already have.
        let claimed = ClientLease(clientID: opened.doc.clientID, clock: 7)
        try store.storage.withAdapter { try $0.commit([.put(DocumentCategories.clientLease, key: id.rawValue, value: claimed.encoded)]) }
        let reopened = try store.open(id)
        #expect(reopened.doc.clientID != opened.doc.clientID)
        // A malformed lease is not reused either.
        try reopened.close()
        try store.storage.withAdapter { try $0.commit([.put(DocumentCategories.clientLease, key: id.rawValue, value: [1, 2, 3])]) }
        let again = try store.open(id)
        #expect(again.doc.clientID != reopened.doc.clientID)
    }

    @Test func twoOpensAtOnceNeverShareAClientID() throws {
        let store = DocumentStore(storage: .inMemory())
        let opened = try store.open(id, createIfMissing: true)
        try edit(opened, "a")
        try opened.close()
        let one = try store.open(id)
        let two = try store.open(id)
        #expect(one.doc.clientID == opened.doc.clientID)
        #expect(two.doc.clientID != one.doc.clientID)
        try one.close()
        try two.close()
    }

    @Test func deletingOrEvictingADocumentDropsItsLease() throws {
        let store = DocumentStore(storage: .inMemory())
        let opened = try store.open(id, createIfMissing: true)
        try edit(opened, "a")
        try opened.close()
        try store.delete(id)
        #expect(try store.storage.withAdapter { try $0.read(DocumentCategories.clientLease, key: id.rawValue) } == nil)
        let recreated = try store.open(id, createIfMissing: true)
        #expect(recreated.doc.clientID != opened.doc.clientID)
        try recreated.close()
        #expect(try store.storage.withAdapter { try $0.read(DocumentCategories.clientLease, key: id.rawValue) } != nil)
        try store.evict(id, force: true)
        #expect(try store.storage.withAdapter { try $0.read(DocumentCategories.clientLease, key: id.rawValue) } == nil)
    }

    @Test func theActorIDIsStableAcrossRestartsAndNewForANewStore() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/store.sqlite"
        let first = try DocumentStore(path: path)
        let actor = try first.actorID()
        #expect(actor.utf8.count == 32)
        #expect(try first.actorID() == actor)
        try first.close()
        let reopened = try DocumentStore(path: path)
        #expect(try reopened.actorID() == actor)
        #expect(try DocumentStore(storage: .inMemory()).actorID() != actor)
        try reopened.wipeAll()
        #expect(try reopened.actorID() != actor)
    }
}
