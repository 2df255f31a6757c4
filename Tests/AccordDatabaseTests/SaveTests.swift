import AccordCRDT
import AccordDatabase
import AccordStore
import AccordTesting
import Foundation
import Testing

@Suite struct SaveTests {
    @Test func saveReadAndReopen() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        let doc = try MutableDocument(id: "p1", json: #"{"name":"Ann","address":{"city":"Paris"},"tags":["a","b"]}"#)
        try collection.save(document: doc)
        #expect(doc.sequence > 0)
        let read = try #require(try collection.document(id: "p1"))
        #expect(read.toJSON() == #"{"address":{"city":"Paris"},"name":"Ann","tags":["a","b"]}"#)
        #expect(read.sequence == doc.sequence)
        #expect(collection.count == 1)
        #expect(try collection.document(id: "missing") == nil)

        let database = try fixture.reopened()
        defer { try? database.close() }
        let again = try #require(try database.defaultCollection().document(id: "p1"))
        #expect(again.toJSON() == read.toJSON())
        #expect(again.sequence == read.sequence)
    }

    /// Each save writes only what it changed since it read the document, so two writers
    /// who read the same version and changed different keys, at any depth, both keep
    /// their change (lastWriteWins never drops a key the saver did not touch).
    @Test func twoWritersOfDifferentNestedKeysBothKeepTheirEdit() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        try collection.save(document: try MutableDocument(
            id: "p", json: #"{"name":"Ann","address":{"city":"Paris","zip":"75001"},"n":1}"#))
        let first = try #require(try collection.document(id: "p")).toMutable()
        let second = try #require(try collection.document(id: "p")).toMutable()
        first.dictionary(forKey: "address")?.setString("Lyon", forKey: "city")
        first.removeValue(forKey: "n")
        second.dictionary(forKey: "address")?.setString("69001", forKey: "zip")
        second.setString("Bob", forKey: "name")
        try collection.save(document: first)
        try collection.save(document: second)
        let merged = try #require(try collection.document(id: "p"))
        #expect(merged.toJSON() == #"{"address":{"city":"Lyon","zip":"69001"},"name":"Bob"}"#)
        // The saved document now holds the merged content, so its next save diffs from it.
        #expect(second.toJSON() == merged.toJSON())
        #expect(second.sequence == merged.sequence)
    }

    @Test func failOnConflictRefusesExactlyWhenAnotherWriterChangedTheDocument() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        let created = MutableDocument(id: "c").setInt(1, forKey: "n")
        #expect(try collection.save(document: created, concurrencyControl: .failOnConflict))
        let a = try #require(try collection.document(id: "c")).toMutable()
        let b = try #require(try collection.document(id: "c")).toMutable()
        a.setInt(2, forKey: "n")
        #expect(try collection.save(document: a, concurrencyControl: .failOnConflict))
        b.setInt(3, forKey: "n")
        #expect(try !collection.save(document: b, concurrencyControl: .failOnConflict))
        #expect(try collection.document(id: "c")?.int(forKey: "n") == 2)
        // Its own earlier save is no conflict: the document carries the new sequence.
        a.setInt(4, forKey: "n")
        #expect(try collection.save(document: a, concurrencyControl: .failOnConflict))
        // A new document whose id is taken conflicts; lastWriteWins replaces it.
        let fresh = MutableDocument(id: "c").setString("x", forKey: "other")
        #expect(try !collection.save(document: fresh, concurrencyControl: .failOnConflict))
        #expect(try collection.save(document: fresh, concurrencyControl: .lastWriteWins))
        #expect(try collection.document(id: "c")?.toJSON() == #"{"other":"x"}"#)
        // Deleted since read: a conflict for the old reader, none for a new document.
        let reader = try #require(try collection.document(id: "c")).toMutable()
        try collection.delete(document: try #require(try collection.document(id: "c")))
        #expect(try !collection.save(document: reader, concurrencyControl: .failOnConflict))
        #expect(try collection.save(document: MutableDocument(id: "c"), concurrencyControl: .failOnConflict))
    }

    @Test func deleteLeavesATombstoneAndPurgeHidesLocally() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        try collection.save(document: MutableDocument(id: "d").setInt(1, forKey: "n"))
        try collection.save(document: MutableDocument(id: "p").setInt(2, forKey: "n"))
        let doc = try #require(try collection.document(id: "d"))
        let before = doc.sequence
        try collection.delete(document: doc)
        #expect(doc.sequence > before)
        #expect(try collection.document(id: "d") == nil)
        #expect(collection.count == 1)
        let twice = #expect(throws: AccordError.self) { try collection.delete(document: doc) }
        #expect(twice?.code == .documentNotFound)

        try collection.purge(id: "p")
        #expect(try collection.document(id: "p") == nil)
        #expect(collection.count == 0)
        let missing = #expect(throws: AccordError.self) { try collection.purge(id: "p") }
        #expect(missing?.code == .documentNotFound)

        // Both stay so after reopening (the purge is local, the delete is in the CRDT).
        let database = try fixture.reopened()
        defer { try? database.close() }
        #expect(try database.defaultCollection().document(id: "d") == nil)
        #expect(try database.defaultCollection().document(id: "p") == nil)
        #expect(try database.defaultCollection().count == 0)
    }

    @Test(arguments: ["_id", "_rev", "_deleted", "_attachments", "_removed", "_sequence"])
    func reservedTopLevelKeysAreRefused(key: String) throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        let doc = MutableDocument(id: "r").setInt(1, forKey: key)
        let error = #expect(throws: AccordError.self) { try collection.save(document: doc) }
        #expect(error?.code == .reservedKey)
        #expect(try collection.document(id: "r") == nil)
        // Nested, or another `_` key, is fine.
        doc.removeValue(forKey: key).setValue([key: 1], forKey: "inner").setInt(2, forKey: "_mine")
        try collection.save(document: doc)
        #expect(try collection.document(id: "r")?.int(forKey: "_mine") == 2)
    }

    @Test func invalidValuesAndIDsAreRefusedAndNothingIsWritten() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        let nan = MutableDocument(id: "v").setDouble(.nan, forKey: "x").setInt(1, forKey: "ok")
        let nanError = #expect(throws: AccordError.self) { try collection.save(document: nan) }
        #expect(nanError?.code == .invalidValue)
        #expect(nanError?.details["key"] == "x")
        let odd = MutableDocument(id: "v").setValue(URL(fileURLWithPath: "/"), forKey: "u")
        #expect((#expect(throws: AccordError.self) { try collection.save(document: odd) })?.code == .invalidValue)
        let badIndex = MutableDocument(id: "v").setArray(MutableArrayObject().setInt(1, at: 3), forKey: "a")
        #expect((#expect(throws: AccordError.self) { try collection.save(document: badIndex) })?.code == .invalidValue)
        let cycle = MutableDictionaryObject()
        cycle.setDictionary(cycle, forKey: "self")
        let cyclic = MutableDocument(id: "v").setDictionary(cycle, forKey: "c")
        #expect((#expect(throws: AccordError.self) { try collection.save(document: cyclic) })?.code == .invalidValue)
        let emptyID = #expect(throws: AccordError.self) { try collection.save(document: MutableDocument(id: "")) }
        #expect(emptyID?.code == .invalidArgument)
        #expect(collection.count == 0)
    }

    /// The CRDT document holds each document as a nested map of its properties (arrays as
    /// lists), the layout any Yjs peer reads.
    @Test func theCollectionsCRDTDocumentHoldsNestedMaps() throws {
        let fixture = try DatabaseFixture()
        try fixture.collection.save(document: try MutableDocument(
            id: "p", json: #"{"address":{"city":"Paris"},"list":[1,{"k":"v"}]}"#))
        try fixture.database.close()
        let store = try DocumentStore(path: fixture.folder.file("app.accorddb/store.sqlite"))
        let doc = try store.load("database/_default/_default")
        let document = try #require(try doc.getMap("documents")["p"]?.map)
        #expect(document["address"]?.map?["city"]?.value == .string("Paris"))
        #expect(document["list"]?.array?.count == 2)
        #expect(try document["list"]?.array?.get(1).map?["k"]?.value == .string("v"))
        try store.close()
    }

    /// The table is derived: when it is lost (or behind the store), opening rebuilds it.
    @Test func aLostDocumentTableIsRebuiltFromTheStore() throws {
        let fixture = try DatabaseFixture()
        try fixture.collection.save(document: MutableDocument(id: "a").setInt(1, forKey: "n"))
        try fixture.collection.save(document: MutableDocument(id: "b").setInt(2, forKey: "n"))
        try fixture.collection.delete(document: try #require(try fixture.collection.document(id: "b")))
        try fixture.database.close()
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: fixture.folder.file("app.accorddb/documents.sqlite\(suffix)"))
        }
        let database = try Database(name: "app", directory: fixture.folder.path)
        defer { try? database.close() }
        #expect(try database.defaultCollection().document(id: "a")?.int(forKey: "n") == 1)
        #expect(try database.defaultCollection().document(id: "b") == nil)
        #expect(try database.defaultCollection().count == 1)
    }

    @Test func arraysAreEditedInPlaceWhenUnchangedSinceRead() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        try collection.save(document: try MutableDocument(id: "l", json: #"{"l":[1,2,3,4]}"#))
        let doc = try #require(try collection.document(id: "l")).toMutable()
        doc.array(forKey: "l")?.removeValue(at: 1).insertValue("x", at: 2)
        try collection.save(document: doc)
        #expect(try collection.document(id: "l")?.toJSON() == #"{"l":[1,3,"x",4]}"#)
    }
}
