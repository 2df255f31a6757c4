import AccordCRDT
import AccordRecords
import AccordStore
import AccordTesting
import Foundation
import Testing

/// Writes over REST go through the document: connected clients (an Accord client and a
/// stock pycrdt-websocket peer) see them live, and they are durable before the answer.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RecordsLiveTests {
    private static var watchScript: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/pycrdt_ws_records_watch.py").path
    }

    @Test func aRESTWriteReachesAConnectedClientAndAPycrdtPeerLive() async throws {
        guard let python = ProcessInfo.processInfo.environment["ACCORD_PYTHON"], !python.isEmpty else {
            throw TestFailure("ACCORD_PYTHON is not set; run `make test`, which sets up the pycrdt-websocket venv")
        }
        let server = try TestServer()
        try await server.prepareRecords("live", members: ["wes": "read-write"])
        let client = try await server.client("wes", document: "live")
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: python)
        watcher.arguments = [
            Self.watchScript, "--url", "ws://127.0.0.1:\(server.port)/v1/sync/live?token=\(server.token("wes"))",
            "--model", "tasks", "--id", "t1", "--timeout", "30",
        ]
        let output = Pipe()
        watcher.standardOutput = output
        watcher.standardError = Pipe()
        try watcher.run()
        let handle = output.fileHandleForReading
        let firstLine = try await onThread { () -> String in
            var text = ""
            while !text.contains("\n") {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        try #require(firstLine.hasPrefix("synced"), "the pycrdt peer did not sync: \(firstLine)")

        let created = try await server.call(
            "POST", "/v1/documents/live/records/tasks", user: "olivia", body: #"{"id":"t1","title":"live","tags":["b","a"]}"#)
        #expect(created.status == 201, "\(created.text)")
        try await eventually("the Accord client has the record") {
            client.edit("live") { doc in
                guard case .map(let record)? = try? doc.getMap("tasks").get("t1"),
                      case .value(.string(let title))? = record.get("title") else { return false }
                return title == "live"
            }
        }
        let result = try await onThread { () -> (Int32, String) in
            watcher.waitUntilExit()
            return (watcher.terminationStatus, String(decoding: handle.readDataToEndOfFile(), as: UTF8.self))
        }
        #expect(result.0 == 0)
        let line = try #require(result.1.split(separator: "\n").last)
        let record = try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["record"] as? [String: Any])
        #expect(record["title"] as? String == "live" && record["tags"] as? [String] == ["a", "b"])
        #expect(record["priority"] as? Int == 0)

        // A client's own edit is seen by the next server-side query.
        try client.edit("live") { doc in
            try RecordLayout.write(["title": .string("from client")], id: "t2", model: try Self.tasksSchema(), in: doc)
        }
        var seen = 0
        for _ in 0..<200 where seen != 1 {
            let count = try await server.call(
                "POST", "/v1/documents/live/records/tasks/count", user: "wes", body: #"{"filter":{"title":"from client"}}"#)
            seen = count.record["count"] as? Int ?? -1
            if seen != 1 { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(seen == 1, "the server's query never saw the client's record")
        client.close()
        try await server.stop()
    }

    @Test func aWriteIsDurableBeforeTheResponse() async throws {
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(dataDirectory: directory.path)
        func call(_ method: String, _ path: String, _ body: String?) async throws -> RecordsResponse {
            try await recordsCall(port: serve.port, method, path, token: serve.token, body: body)
        }
        #expect(try await call("POST", "/v1/documents", #"{"id":"kept"}"#).status == 201)
        #expect(try await call("PUT", "/v1/documents/kept/records/$schema", TestServer.recordsSchema).status == 200)
        let created = try await call("POST", "/v1/documents/kept/records/tasks", #"{"id":"t1","title":"survives"}"#)
        #expect(created.status == 201)
        serve.kill()  // SIGKILL: nothing is flushed on the way out
        let store = try DocumentStore(path: directory.path + "/accord.sqlite")
        let record = try RecordLayout.record("t1", of: try Self.tasksSchema(), in: try store.load("kept"))
        #expect(record?.values["title"] == .string("survives"))
        try store.close()
    }

    static func tasksSchema() throws -> ModelSchema {
        let models = try ModelSchema.models(json: try AnyValue(jsonText: TestServer.recordsSchema))
        return try #require(models.first { $0.name == "tasks" })
    }
}
