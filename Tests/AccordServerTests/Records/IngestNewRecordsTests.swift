import AccordCRDT
import AccordRecords
import AccordStore
import AccordTesting
import Foundation
import Testing
@testable import AccordServer

/// An ingest of records new to a document no room holds is written as one update
/// without loading the document, and counted from the index built with it (the room
/// stays unloaded); the stored document reads, in pycrdt and through the records
/// routes, exactly as the same ingest through a room's `Doc` does. Lines for ids the
/// document holds go through the room as before.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct IngestNewRecordsTests {
    let models = ["people", "places", "visits"]

    func ingest(_ server: TestServer, _ document: String, from input: String) async throws {
        let options = ["--server", "http://127.0.0.1:\(server.port)", "--token", server.token("olivia")]
        let run = try await IngestCommandTests.accord(["documents", "ingest", document, "--input", input, "-y"] + options)
        #expect(run.status == 0, "\(run.stderr)")
    }

    func count(_ server: TestServer, _ model: String, in document: String) async throws -> Int {
        let response = try await server.call("POST", "/v1/documents/\(document)/records/\(model)/count", user: "olivia", body: "{}")
        return response.record["count"] as? Int ?? -1
    }

    func roomLoaded(_ server: TestServer, _ document: DocumentID) -> Bool {
        let hub = server.server.hub
        return hub.queue.sync { hub.rooms[document] != nil }
    }

    /// The three models of `state` as pycrdt reads them, JSON with sorted keys.
    func pycrdtRecords(_ state: [UInt8]) async throws -> String {
        let file = try TemporaryDirectory()
        let path = file.path + "/document.yjs"
        try Data(state).write(to: URL(fileURLWithPath: path))
        let script = """
            import sys, json, pycrdt
            doc = pycrdt.Doc()
            doc.apply_update(open(sys.argv[1], 'rb').read())
            print(json.dumps({m: doc.get(m, type=pycrdt.Map).to_py() for m in ['people', 'places', 'visits']}, sort_keys=True))
            """
        return try await pythonOutput(script, arguments: [path])
    }

    @Test func anUnloadedDocumentGetsTheSameRecordsWithoutLoadingIt() async throws {
        // Past the index's batch of 10,000 rows per model, so rows go in several batches.
        let total = 33_000
        let server = try TestServer()
        try await server.prepareRecords("direct", schema: IngestCommandTests.schema)
        try await server.prepareRecords("viaRoom", schema: IngestCommandTests.schema)
        let input = try TemporaryDirectory()
        try IngestCommandTests.writeInput(input.path, count: total)
        // A connected client holds viaRoom's room: its ingest goes through the room's Doc.
        let client = try await server.client("olivia", document: "viaRoom")
        try await ingest(server, "viaRoom", from: input.path)
        try await ingest(server, "direct", from: input.path)

        let full = [(total + 2) / 3, (total + 1) / 3, total / 3]
        #expect(!roomLoaded(server, "direct"))
        for (model, expected) in zip(models, full) {
            #expect(try await count(server, model, in: "direct") == expected)
        }
        let query = try await server.call(
            "POST", "/v1/documents/direct/records/people/query", user: "olivia", body: #"{"filter":{"name":"person 3"}}"#)
        #expect(query.text.contains(#""p3""#), "\(query.text)")
        #expect(!roomLoaded(server, "direct"), "the counts and the query came from the ingest's index")

        // The stored documents read alike in a Yjs peer.
        let direct = try await pycrdtRecords(try server.documentState("direct"))
        let viaRoom = try await pycrdtRecords(try server.documentState("viaRoom"))
        #expect(direct == viaRoom)
        #expect(direct.contains(#""p0": {"age": 1"#) && direct.contains(#""name": "person 0"}"#), "\(direct.prefix(300))")
        #expect(direct.contains(#""c1": {"city": "city 1", "tags": {"a": true}}"#), "\(direct.prefix(300))")

        // Reading a record loads the room from the store; the room's index agrees.
        let person = try await server.call("GET", "/v1/documents/direct/records/people/p3", user: "olivia")
        #expect(person.record["name"] as? String == "person 3" && person.record["age"] as? Int == 1, "\(person.text)")
        #expect(roomLoaded(server, "direct"))
        #expect(try await count(server, "people", in: "direct") == full[0])
        // A client joining now converges on every record.
        let late = try await server.client("olivia", document: "direct")
        try await eventually("the client has every record", timeout: .seconds(30)) {
            late.edit("direct") { doc in models.map { (try? doc.getMap($0).count) ?? 0 } == full }
        }
        late.close()
        client.close()
        try await server.stop()
    }

    /// After a restart (no room loaded), lines naming ids the document holds, or one id
    /// twice, go through the room: patched and upserted in order, as before.
    @Test func existingOrRepeatedIdsGoThroughTheRoom() async throws {
        let server = try TestServer()
        try await server.prepareRecords("data", schema: IngestCommandTests.schema)
        let input = try TemporaryDirectory()
        try IngestCommandTests.writeInput(input.path, count: 30)
        try await ingest(server, "data", from: input.path)
        try await server.restart()
        #expect(try await count(server, "people", in: "data") == 10)  // the index is rebuilt from the document

        for name in ["places", "visits"] { try FileManager.default.removeItem(atPath: input.path + "/\(name).ndjson") }
        try "p0\t{\"age\":40}\n".write(toFile: input.path + "/people.ndjson", atomically: true, encoding: .utf8)
        try await server.restart()
        try await ingest(server, "data", from: input.path)
        let patched = try await server.call("GET", "/v1/documents/data/records/people/p0", user: "olivia")
        #expect(patched.record["age"] as? Int == 40 && patched.record["name"] as? String == "person 0", "\(patched.text)")

        try "n1\t{\"name\":\"first\"}\nn1\t{\"age\":5}\n".write(toFile: input.path + "/people.ndjson", atomically: true, encoding: .utf8)
        try await server.restart()
        try await ingest(server, "data", from: input.path)
        let twice = try await server.call("GET", "/v1/documents/data/records/people/n1", user: "olivia")
        #expect(twice.record["name"] as? String == "first" && twice.record["age"] as? Int == 5, "\(twice.text)")
        #expect(try await count(server, "people", in: "data") == 11)

        // A deleted record's entry stays in the document: the new value must take it as
        // its origin (the room's way), or the record would read as deleted.
        let deleted = try await server.call("DELETE", "/v1/documents/data/records/people/p3", user: "olivia")
        #expect(deleted.status == 200, "\(deleted.text)")
        try "p3\t{\"name\":\"back\"}\n".write(toFile: input.path + "/people.ndjson", atomically: true, encoding: .utf8)
        try await server.restart()
        try await ingest(server, "data", from: input.path)
        let back = try await server.call("GET", "/v1/documents/data/records/people/p3", user: "olivia")
        #expect(back.record["name"] as? String == "back", "\(back.text)")
        #expect(try await count(server, "people", in: "data") == 11)
        try await server.stop()
    }
}
