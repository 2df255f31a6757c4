import AccordCRDT
import AccordDatabase
import AccordStore
import AccordTesting
import Foundation
import Testing

@Suite struct ExpirationTests {
    @Test func expiredDocumentsArePurgedOnTimeAndOnOpen() throws {
        let folder = try TemporaryDirectory(prefix: "db")
        let clock = ManualClock(Date(timeIntervalSince1970: 1_000_000))
        var database = try Database(name: "app", directory: folder.path, now: clock.read)
        var collection = try database.defaultCollection()
        for id in ["soon", "later", "never", "reset"] { try collection.save(document: MutableDocument(id: id)) }
        let start = Date(timeIntervalSince1970: 1_000_000)
        try collection.setDocumentExpiration(id: "soon", expiration: start + 10)
        try collection.setDocumentExpiration(id: "later", expiration: start + 100)
        try collection.setDocumentExpiration(id: "reset", expiration: start + 5)
        try collection.setDocumentExpiration(id: "reset", expiration: nil)
        #expect(try collection.getDocumentExpiration(id: "soon") == start + 10)
        #expect(try collection.getDocumentExpiration(id: "reset") == nil)
        let missing = #expect(throws: AccordError.self) {
            try collection.setDocumentExpiration(id: "absent", expiration: start)
        }
        #expect(missing?.code == .documentNotFound)

        #expect(try database.purgeExpiredDocuments() == 0)
        clock.advance(by: 10)
        #expect(try database.purgeExpiredDocuments() == 1)
        #expect(try collection.document(id: "soon") == nil)
        #expect(try collection.document(id: "later") != nil)
        #expect(collection.count == 3)

        // Closed past the next expiry: purged when it opens again; the rest stays.
        try database.close()
        clock.advance(by: 1_000)
        database = try Database(name: "app", directory: folder.path, now: clock.read)
        defer { try? database.close() }
        collection = try database.defaultCollection()
        #expect(try collection.document(id: "later") == nil)
        #expect(try collection.document(id: "never") != nil)
        #expect(try collection.document(id: "reset") != nil)
        #expect(collection.count == 2)
    }

    /// The purge is local: the content stays in the collection's CRDT document (which is
    /// what replicates), so other replicas keep the document.
    @Test func anExpiryPurgeIsNotACRDTEdit() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        try collection.save(document: MutableDocument(id: "e").setInt(1, forKey: "n"))
        try collection.setDocumentExpiration(id: "e", expiration: Date(timeIntervalSinceNow: -1))
        // Already due: the background pass may purge it first, so whichever ran, it is gone.
        try fixture.database.purgeExpiredDocuments()
        #expect(try collection.document(id: "e") == nil)
        try fixture.database.close()
        let store = try DocumentStore(path: fixture.folder.file("app.accorddb/store.sqlite"))
        defer { try? store.close() }
        let doc = try store.load("database/_default/_default")
        #expect(try doc.getMap("documents")["e"]?.map?["n"]?.value == .int(1))
    }

    /// With the real clock, the scheduled pass purges without anyone calling it.
    @Test func theBackgroundPassPurgesAtTheExpiry() async throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        try collection.save(document: MutableDocument(id: "e"))
        let purged = collection.changes()
        try collection.setDocumentExpiration(id: "e", expiration: Date(timeIntervalSinceNow: 0.2))
        var iterator = purged.makeAsyncIterator()
        #expect(await iterator.next()?.documentIDs == ["e"])
        #expect(try collection.document(id: "e") == nil)
    }
}
