import Foundation
import Testing
import AccordCRDT
import AccordPostgres
import AccordRecords
import AccordStore
import AccordTesting

/// `accord serve --postgres`: the server's state lives in PostgreSQL, durable before a
/// response, and a new process with an empty data directory serves it (the node keeps
/// nothing that matters locally).
@Suite struct PostgresServeTests {
    @Test func aWriteIsInPostgresBeforeTheResponseAndAnotherNodeServesIt() async throws {
        guard let url = ProcessInfo.processInfo.environment["ACCORD_POSTGRES_URL"], !url.isEmpty else {
            Issue.record("ACCORD_POSTGRES_URL is not set: run the tests through scripts/test.sh, which starts PostgreSQL")
            return
        }
        let schema = "serve" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        defer { _ = try? PostgresConnection(url: url).execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        let first = try TemporaryDirectory()
        let postgres = ["--postgres", url, "--postgres-schema", schema]
        var serve = try ServeProcess(dataDirectory: first.path, extraArguments: postgres)
        func call(_ method: String, _ path: String, _ body: String?) async throws -> RecordsResponse {
            try await recordsCall(port: serve.port, method, path, token: serve.token, body: body)
        }
        #expect(try await call("POST", "/v1/documents", #"{"id":"kept"}"#).status == 201)
        #expect(try await call("PUT", "/v1/documents/kept/records/$schema", TestServer.recordsSchema).status == 200)
        #expect(try await call("POST", "/v1/documents/kept/records/tasks", #"{"id":"t1","title":"in postgres"}"#).status == 201)
        serve.kill()  // SIGKILL: nothing is flushed on the way out

        #expect(!FileManager.default.fileExists(atPath: first.path + "/accord.sqlite"))
        let store = DocumentStore(storage: SerialStorage(try PostgresStorageAdapter(url: url, schema: schema)))
        let tasks = try #require(try ModelSchema.models(json: try AnyValue(jsonText: TestServer.recordsSchema)).first { $0.name == "tasks" })
        #expect(try RecordLayout.record("t1", of: tasks, in: try store.load("kept"))?.values["title"] == .string("in postgres"))
        try store.close()

        // Another node: a fresh data directory (so a new dev secret and token), same database.
        let second = try TemporaryDirectory()
        serve = try ServeProcess(dataDirectory: second.path, extraArguments: postgres)
        let read = try await call("GET", "/v1/documents/kept/records/tasks/t1", nil)
        #expect(read.status == 200)
        #expect(read.record["title"] as? String == "in postgres")

        // Without --cluster, a second server on the same schema refuses to start.
        let third = try TemporaryDirectory()
        let refused = #expect(throws: (any Error).self) {
            _ = try ServeProcess(dataDirectory: third.path, extraArguments: postgres)
        }
        #expect("\(refused.map { "\($0)" } ?? "")".contains("POSTGRES_SCHEMA_IN_USE"))
        _ = serve.terminate()
    }

    /// `/readyz` follows the database: 503 `SERVER_NOT_READY` while PostgreSQL cannot be
    /// reached (a proxy between them refuses and cuts), ready again once it can, with
    /// `/healthz` (liveness) answering throughout.
    @Test func readyzFollowsTheDatabase() async throws {
        guard let url = ProcessInfo.processInfo.environment["ACCORD_POSTGRES_URL"], !url.isEmpty else {
            Issue.record("ACCORD_POSTGRES_URL is not set: run the tests through scripts/test.sh, which starts PostgreSQL")
            return
        }
        let schema = "ready" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        defer { _ = try? PostgresConnection(url: url).execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        let databasePort = Int(url.split(separator: ":").last?.split(separator: "/").first ?? "") ?? 5432
        let proxy = try FaultProxy(targetPort: databasePort)
        let proxied = url.replacingOccurrences(of: ":\(databasePort)/", with: ":\(proxy.port)/")
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(dataDirectory: directory.path, extraArguments: ["--postgres", proxied, "--postgres-schema", schema])
        func probe(_ path: String) async throws -> RecordsResponse {
            try await recordsCall(port: serve.port, "GET", path, token: nil)
        }
        #expect(try await probe("/readyz").status == 200)

        proxy.refuseNew = true
        proxy.cutAll()
        let down = try await probe("/readyz")
        #expect(down.status == 503)
        #expect(down.errorCode == "SERVER_NOT_READY")
        #expect(try await probe("/healthz").status == 200)

        proxy.refuseNew = false
        #expect(try await probe("/readyz").status == 200)
        _ = serve.terminate()
        await proxy.stop()
    }

    @Test func anUnreachableDatabaseStopsTheServerWithTheCode() throws {
        let directory = try TemporaryDirectory()
        let error = #expect(throws: (any Error).self) {
            _ = try ServeProcess(
                dataDirectory: directory.path, extraArguments: ["--postgres", "postgres://accord@127.0.0.1:1/none?connect_timeout=2"])
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("POSTGRES_UNAVAILABLE"))
    }
}
