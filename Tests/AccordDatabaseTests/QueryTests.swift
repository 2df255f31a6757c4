import AccordCRDT
@testable import AccordDatabase
import AccordRecords
import Foundation
import Testing

@Suite struct QueryTests {
    func people() throws -> DatabaseFixture {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        try fixture.database.inBatch {
            for (id, json) in [
                ("ann", #"{"name":"Ann","age":31,"address":{"city":"Paris"},"tags":["admin","x"]}"#),
                ("bob", #"{"name":"Bob","age":25,"address":{"city":"Lyon"}}"#),
                ("cy", #"{"name":"Cy","age":"unknown","address":{"city":"Paris"}}"#),
                ("dee", #"{"name":"Dee"}"#),
            ] {
                try collection.save(document: try MutableDocument(id: id, json: json))
            }
        }
        return fixture
    }

    @Test func filtersSortsPagesAndCountsOverKeyPaths() throws {
        let fixture = try people()
        let collection = try fixture.collection
        #expect(try collection.query(["address.city": "Paris"]).map(\.id) == ["ann", "cy"])
        #expect(try collection.query(["age": ["$gte": 25]], DocumentQueryOptions(sortOrder: [SortKey("age", .descending)]))
            .map(\.id) == ["ann", "bob"])
        #expect(try collection.query(["tags": ["$contains": "admin"]]).map(\.id) == ["ann"])
        #expect(try collection.query(["address": ["$exists": false]]).map(\.id) == ["dee"])
        // Absent and null first ascending; other types by type: numbers before strings.
        let byAge = try collection.query(.all, DocumentQueryOptions(sortOrder: [SortKey("age")])).map(\.id)
        #expect(byAge == ["dee", "bob", "ann", "cy"])
        let page = try collection.query(.all, DocumentQueryOptions(sortOrder: [SortKey("_id")], limit: 2, offset: 1))
        #expect(page.map(\.id) == ["bob", "cy"])
        #expect(try collection.count(["address.city": ["$ne": "Paris"]]) == 2)
        let malformed = #expect(throws: AccordError.self) { try collection.query(["age": ["$near": 1]]) }
        #expect(malformed?.code == .invalidQuery)
        let badPath = #expect(throws: AccordError.self) { try collection.query(["a..b": 1]) }
        #expect(badPath?.code == .invalidQuery)
    }

    @Test func resultsAsDocumentsOrJSONInBothShapes() throws {
        let fixture = try people()
        let collection = try fixture.collection
        let all = try #require(try collection.query(["name": "Bob"]).first)
        #expect(all.document.int(forKey: "age") == 25)
        #expect(all.toJSON() == #"{"_default":{"address":{"city":"Lyon"},"age":25,"name":"Bob"}}"#)
        let selected = try #require(
            try collection.query(["name": "Ann"], DocumentQueryOptions(select: ["name", "address.city", "nope"])).first)
        #expect(selected.toJSON() == #"{"name":"Ann","city":"Paris"}"#)
    }

    @Test func indexesAreCreatedListedUsedAndDeleted() throws {
        let fixture = try people()
        let collection = try fixture.collection
        try collection.createIndex(name: "byCity", keyPaths: ["address.city", "age"])
        try collection.createIndex(name: "byCity", keyPaths: ["address.city", "age"])  // again: nothing
        let clash = #expect(throws: AccordError.self) { try collection.createIndex(name: "byCity", keyPaths: ["name"]) }
        #expect(clash?.code == .invalidArgument)
        try collection.createIndex(name: "name", keyPaths: ["name"])
        #expect(try collection.indexes() == ["byCity", "name"])
        #expect(try collection.query(["address.city": "Paris"]).map(\.id) == ["ann", "cy"])
        try collection.deleteIndex(name: "byCity")
        #expect(try collection.indexes() == ["name"])
        #expect(try collection.query(["address.city": "Paris"]).map(\.id) == ["ann", "cy"])

        // Indexes are per collection and survive reopening.
        let database = try fixture.reopened()
        defer { try? database.close() }
        #expect(try database.defaultCollection().indexes() == ["name"])
        #expect(try database.createCollection(name: "other").indexes() == [])
    }

    /// A query on an index's first key path searches that index (not the primary key's
    /// collection range, which SQLite prefers without statistics).
    @Test func aQueryOnAnIndexedPathUsesTheIndex() throws {
        let fixture = try people()
        let collection = try fixture.collection
        #expect(try !collection.queryPlan(["address.city": "Paris"]).contains("accord_index"))
        try collection.createIndex(name: "byCity", keyPaths: ["address.city"])
        #expect(try collection.queryPlan(["address.city": "Paris"]).contains("accord_index:_default._default:byCity"))
        #expect(try collection.queryPlan(["address.city": ["$gt": "M"]]).contains("accord_index:_default._default:byCity"))
        #expect(try collection.queryPlan(["name": "Ann"]).contains("PRIMARY KEY"))
    }

    @Test func queriesFilterAndSortOnExpiration() throws {
        let fixture = try people()
        let collection = try fixture.collection
        let soon = Date().addingTimeInterval(3_600), later = Date().addingTimeInterval(7_200)
        try collection.setDocumentExpiration(id: "bob", expiration: later)
        try collection.setDocumentExpiration(id: "cy", expiration: soon)
        #expect(try collection.query(["_expiration": ["$exists": true]]).map(\.id) == ["bob", "cy"])
        #expect(try collection.query(["_expiration": ["$lt": .double(later.timeIntervalSince1970)]]).map(\.id) == ["cy"])
        #expect(try collection.query(.all, DocumentQueryOptions(sortOrder: [SortKey("_expiration", .descending)])).map(\.id)
            == ["bob", "cy", "ann", "dee"])
        let refused = #expect(throws: AccordError.self) { try collection.createIndex(name: "e", keyPaths: ["_expiration"]) }
        #expect(refused?.code == .invalidArgument)
    }

    /// Documents saved between pages neither repeat nor hide the ones not yet visited.
    @Test func cursorsVisitEveryDocumentOnceWhileOthersAreSaved() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        try fixture.database.inBatch {
            for n in 0..<20 { try collection.save(document: MutableDocument(id: "d\(n)").setInt(n % 5, forKey: "n")) }
        }
        let sort = [SortKey("n", .descending)]
        var seen: [String] = []
        var cursor: String?
        repeat {
            let page = try collection.queryPaged(["n": ["$gte": 1]], DocumentQueryOptions(sortOrder: sort, limit: 3, cursor: cursor))
            seen += page.results.map(\.id)
            cursor = page.nextCursor
            // A document sorting before the cursor and one after it arrive meanwhile.
            try collection.save(document: MutableDocument(id: "new\(seen.count)").setInt(9, forKey: "n"))
        } while cursor != nil
        #expect(Set(seen).count == seen.count)
        #expect(seen.filter { $0.hasPrefix("d") }.count == 16)
        let foreign = try #require(try collection.queryPaged(.all, DocumentQueryOptions(limit: 1)).nextCursor)
        let refused = #expect(throws: AccordError.self) {
            try collection.queryPaged(["n": 1], DocumentQueryOptions(limit: 1, cursor: foreign))
        }
        #expect(refused?.code == .invalidQuery)
        let garbage = #expect(throws: AccordError.self) { try collection.query(.all, DocumentQueryOptions(cursor: "%%%")) }
        #expect(garbage?.code == .invalidQuery)
    }
}
