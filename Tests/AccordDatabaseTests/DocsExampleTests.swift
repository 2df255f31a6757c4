import AccordDatabase
import AccordRecords
import AccordTesting
import Testing

/// The quick start of docs/database.md, compiled and run, so the page stays true.
@Suite struct DocsExampleTests {
    @Test func theQuickStartRuns() throws {
        let directory = try TemporaryDirectory(prefix: "db-docs")
        let folder = directory.path

        let database = try Database(name: "app", directory: folder)
        let people = try database.createCollection(name: "people", scope: "crm")

        let ann = MutableDocument(id: "ann")
            .setString("Ann", forKey: "name")
            .setInt(31, forKey: "age")
            .setValue(["city": "Paris", "zip": "75001"], forKey: "address")
        try people.save(document: ann)

        let read = try people.document(id: "ann")!  // a read-only Document
        let edit = read.toMutable()
        edit.dictionary(forKey: "address")?.setString("Lyon", forKey: "city")  // nested objects are live
        try people.save(document: edit)  // writes address.city only

        try database.inBatch {
            for n in 0..<1_000 { try people.save(document: MutableDocument().setInt(n, forKey: "n")) }
        }
        let token = people.addChangeListener { change in print(change.documentIDs) }
        try people.createIndex(name: "byCity", keyPaths: ["address.city"])
        let parisians = try people.query(
            ["address.city": "Paris"], DocumentQueryOptions(sortOrder: [SortKey("age", .descending)], limit: 20))

        #expect(parisians.isEmpty)
        #expect(try people.query(["address.city": "Lyon"]).map(\.id) == ["ann"])
        #expect(people.count == 1_001)
        token.remove()
        try database.close()
    }
}
