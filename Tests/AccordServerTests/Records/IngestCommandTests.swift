import AccordCRDT
import AccordRecords
import AccordStore
import AccordTesting
import Foundation
import Testing

/// `accord documents ingest` against a real server: atomic landing seen by a concurrent
/// reader, bad lines named with file and line (nothing sent), the exit statuses, and a
/// server killed mid-ingest leaving all or nothing.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct IngestCommandTests {
    static let schema = """
        {"models": [
          {"name": "people", "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "number", "default": 1}]},
          {"name": "places", "fields": [{"name": "city", "type": "string"}, {"name": "tags", "type": "stringset"}]},
          {"name": "visits", "fields": [{"name": "person", "type": "string"}, {"name": "done", "type": "boolean"}]}
        ]}
        """

    /// Writes `count` records split across the three models (both line forms).
    static func writeInput(_ directory: String, count: Int) throws {
        var people = "", places = "", visits = ""
        for i in 0..<count {
            switch i % 3 {
            case 0: people += "p\(i)\t{\"name\":\"person \(i)\"}\n"
            case 1: places += "{\"id\":\"c\(i)\",\"city\":\"city \(i)\",\"tags\":[\"a\"]}\n"
            default: visits += "v\(i)\t{\"person\":\"p\(i - 2)\",\"done\":\(i % 2 == 0)}\n"
            }
        }
        try people.write(toFile: directory + "/people.ndjson", atomically: true, encoding: .utf8)
        try places.write(toFile: directory + "/places.ndjson", atomically: true, encoding: .utf8)
        try visits.write(toFile: directory + "/visits.ndjson", atomically: true, encoding: .utf8)
    }

    struct Run: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func accord(_ arguments: [String], stdin: String? = nil, interruptAfter prompt: String? = nil) async throws -> Run {
        let binary = try #require(BuiltProduct.url(named: "accord", environment: "ACCORD_CLI"))
        return try await onThread {
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            let output = Pipe(), errors = Pipe(), input = Pipe()
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = input
            try process.run()
            if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
            var stderr = ""
            if let prompt {
                while !stderr.contains(prompt) {
                    let chunk = errors.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    stderr += String(decoding: chunk, as: UTF8.self)
                }
                kill(process.processIdentifier, SIGINT)
            }
            let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            stderr += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return Run(status: process.terminationStatus, stdout: stdout, stderr: stderr)
        }
    }

    func options(_ server: TestServer) -> [String] {
        ["--server", "http://127.0.0.1:\(server.port)", "--token", server.token("olivia")]
    }

    func count(_ server: TestServer, _ model: String, document: String = "data") async throws -> Int {
        let response = try await server.call("POST", "/v1/documents/\(document)/records/\(model)/count", user: "olivia", body: "{}")
        return response.record["count"] as? Int ?? -1
    }

    @Test func recordsAcrossThreeModelsLandAtomically() async throws {
        let total = ProcessInfo.processInfo.environment["ACCORD_SOAK"] == "1" ? 300_000 : 100_000
        let server = try TestServer()
        try await server.prepareRecords("data", schema: Self.schema)
        let input = try TemporaryDirectory()
        try Self.writeInput(input.path, count: total)
        // A connected client converges onto the ingest without reopening.
        let client = try await server.client("olivia", document: "data")
        // A reader counting the three models one after another while the ingest runs:
        // each count is none or all of its model, and once one model is all there, every
        // model read after it is too (the three land in one transaction).
        let full = [(total + 2) / 3, (total + 1) / 3, total / 3]
        let reader = Task { () -> [[Int]] in
            var seen: [[Int]] = []
            while !Task.isCancelled {
                let counts = try await [count(server, "people"), count(server, "places"), count(server, "visits")]
                seen.append(counts)
                if counts == full { break }
            }
            return seen
        }
        let run = try await Self.accord(["documents", "ingest", "data", "--input", input.path, "-y"] + options(server))
        #expect(run.status == 0, "\(run.stderr)")
        for state in ["uploading", "validating", "complete"] { #expect(run.stderr.contains(state), "\(run.stderr)") }
        let seen = try await reader.value
        for counts in seen {
            let landed = zip(counts, full).map { count, all in count == all ? 1 : (count == 0 ? 0 : -1) }
            #expect(!landed.contains(-1) && landed == landed.sorted(), "a reader saw part of the ingest: \(counts)")
        }
        #expect(seen.last == full)
        try await eventually("the connected client has every record", timeout: .seconds(30)) {
            client.edit("data") { doc in
                ["people", "places", "visits"].map { (try? doc.getMap($0).count) ?? 0 } == full
            }
        }
        client.close()
        #expect(try await count(server, "people") == (total + 2) / 3)
        let person = try await server.call("GET", "/v1/documents/data/records/people/p0", user: "olivia")
        #expect(person.record["age"] as? Int == 1)  // defaults for new records

        // A second ingest merges: patch one field, delete one record, leave the rest.
        // Lines apply in order: a record named twice gets both (the second line's defaults
        // never undo the first), one deleted then written again exists.
        try """
            p0\t{"age":40}
            p3\t{"_deleted":true}
            p6\t{"age":7}
            p6\t{"name":"x"}
            p9\t{"_deleted":true}
            p9\t{"name":"again"}

            """.write(toFile: input.path + "/people.ndjson", atomically: true, encoding: .utf8)
        for name in ["places", "visits"] { try FileManager.default.removeItem(atPath: input.path + "/\(name).ndjson") }
        let second = try await Self.accord(["documents", "ingest", "data", "--input", input.path, "-y"] + options(server))
        #expect(second.status == 0, "\(second.stderr)")
        let patched = try await server.call("GET", "/v1/documents/data/records/people/p0", user: "olivia")
        #expect(patched.record["age"] as? Int == 40 && patched.record["name"] as? String == "person 0")
        #expect(try await server.call("GET", "/v1/documents/data/records/people/p3", user: "olivia").status == 404)
        let p6 = try await server.call("GET", "/v1/documents/data/records/people/p6", user: "olivia")
        #expect(p6.record["name"] as? String == "x" && p6.record["age"] as? Int == 7, "\(p6.text)")
        let p9 = try await server.call("GET", "/v1/documents/data/records/people/p9", user: "olivia")
        #expect(p9.record["name"] as? String == "again" && p9.record["age"] as? Int == 1, "\(p9.text)")
        try await server.stop()
    }

    @Test func aBadLineIsNamedAndNothingIsSent() async throws {
        let server = try TestServer()
        try await server.prepareRecords("data", schema: Self.schema)
        let input = try TemporaryDirectory()
        try Self.writeInput(input.path, count: 30)
        try "v1\t{\"done\":true}\n\nv2\t{\"done\":\"yes\"}\n".write(toFile: input.path + "/visits.ndjson", atomically: true, encoding: .utf8)
        let before = try server.documentState("data")
        let run = try await Self.accord(["documents", "ingest", "data", "--input", input.path, "-y"] + options(server))
        #expect(run.status == 1)
        #expect(run.stderr.contains("VALIDATION_FAILED") && run.stderr.contains("visits.ndjson line 3"), "\(run.stderr)")
        #expect(!run.stderr.contains("session"))
        try "p1\t{\"_private\":1}\n".write(toFile: input.path + "/people.ndjson", atomically: true, encoding: .utf8)
        let reserved = try await Self.accord(["documents", "ingest", "data", "--input", input.path, "-y"] + options(server))
        #expect(reserved.status == 1 && reserved.stderr.contains("RESERVED_FIELD_NAME") && reserved.stderr.contains("people.ndjson line 1"))
        #expect(try server.documentState("data") == before)
        try await server.stop()
    }

    @Test func uniqueKeysAreCheckedAcrossTheWholeIngest() async throws {
        let server = try TestServer()
        try await server.prepareRecords("data")  // tasks: "code" is unique
        let input = try TemporaryDirectory()
        try "t1\t{\"code\":\"A\"}\nt2\t{\"code\":\"A\"}\n".write(toFile: input.path + "/tasks.ndjson", atomically: true, encoding: .utf8)
        let before = try server.documentState("data")
        let clash = try await Self.accord(["documents", "ingest", "data", "--input", input.path, "-y"] + options(server))
        #expect(clash.status == 1 && clash.stderr.contains("UNIQUE_VIOLATION"), "\(clash.stderr)")
        #expect(try server.documentState("data") == before)
        try "t1\t{\"code\":\"A\"}\nt2\t{\"code\":\"B\",\"title\":\"two\"}\n".write(
            toFile: input.path + "/tasks.ndjson", atomically: true, encoding: .utf8)
        let fine = try await Self.accord(["documents", "ingest", "data", "--input", input.path, "-y"] + options(server))
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(try await count(server, "tasks") == 2)
        try await server.stop()
    }

    @Test func gzipInputIsRead() async throws {
        let server = try TestServer()
        try await server.prepareRecords("data", schema: Self.schema)
        let input = try TemporaryDirectory()
        try Self.writeInput(input.path, count: 300)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", input.path + "/people.ndjson", input.path + "/places.ndjson"]
        try gzip.run()
        gzip.waitUntilExit()
        try #require(gzip.terminationStatus == 0)
        let run = try await Self.accord(["documents", "ingest", "data", "--input", input.path, "-y"] + options(server))
        #expect(run.status == 0, "\(run.stderr)")
        for model in ["people", "places", "visits"] { #expect(try await count(server, model) == 100) }

        try Data([0x1F, 0x8B, 0x08, 0x00, 0x01, 0x02]).write(to: URL(fileURLWithPath: input.path + "/people.ndjson.gz"))
        let corrupt = try await Self.accord(["documents", "ingest", "data", "--input", input.path, "-y"] + options(server))
        #expect(corrupt.status == 1 && corrupt.stderr.contains("people.ndjson.gz"), "\(corrupt.stderr)")
        try await server.stop()
    }

    @Test func exitStatusesForTimeoutInterruptRefusalAndUnknownSessions() async throws {
        let server = try TestServer()
        try await server.prepareRecords("data", schema: Self.schema)
        let input = try TemporaryDirectory()
        try Self.writeInput(input.path, count: 30)
        let base = ["documents", "ingest", "data", "--input", input.path] + options(server)

        let interrupted = try await Self.accord(base, interruptAfter: "[y/N]")
        #expect(interrupted.status == 130, "\(interrupted.stderr)")
        let refused = try await Self.accord(base, stdin: "n\n")
        #expect(refused.status == 1 && refused.stderr.contains("not confirmed"))
        let timedOut = try await Self.accord(base + ["--timeout", "0.001"], interruptAfter: nil)
        #expect(timedOut.status == 124, "\(timedOut.stderr)")
        #expect(try await count(server, "people") == 0)

        let unknown = try await Self.accord(["documents", "ingests", "get", "data", "nope"] + options(server))
        #expect(unknown.status == 1 && unknown.stderr.contains("INGEST_SESSION_NOT_FOUND"), "\(unknown.stderr)")
        let usage = try await Self.accord(["documents", "ingest", "data"] + options(server))
        #expect(usage.status == 2)

        let noWait = try await Self.accord(base + ["-y", "--no-wait"])
        #expect(noWait.status == 0, "\(noWait.stderr)")
        let session = try #require(
            (try JSONSerialization.jsonObject(with: Data(noWait.stdout.utf8)) as? [String: Any])?["session"] as? String)
        var state = ""
        var last = ""
        for _ in 0..<500 where state != "complete" {
            let got = try await Self.accord(["documents", "ingests", "get", "data", session] + options(server))
            state = ((try? JSONSerialization.jsonObject(with: Data(got.stdout.utf8))) as? [String: Any])?["state"] as? String ?? ""
            last = "status \(got.status), stdout \(got.stdout.prefix(300)), stderr \(got.stderr.prefix(300))"
            if state != "complete" { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(state == "complete", "last answer: \(last)")
        try await server.stop()
    }

    @Test func aServerKilledMidIngestKeepsAllOrNothing() async throws {
        let directory = try TemporaryDirectory()
        var serve = try ServeProcess(dataDirectory: directory.path)
        func call(_ method: String, _ path: String, _ body: String?) async throws -> RecordsResponse {
            try await recordsCall(port: serve.port, method, path, token: serve.token, body: body)
        }
        #expect(try await call("POST", "/v1/documents", #"{"id":"data"}"#).status == 201)
        #expect(try await call("PUT", "/v1/documents/data/records/$schema", Self.schema).status == 200)
        let lines = (0..<3000).map { "p\($0)\t{\"name\":\"n\($0)\"}" }.joined(separator: "\n")
        // Killed while uploading: the session is forgotten, nothing applied.
        let first = try await call("POST", "/v1/documents/data/records/$ingests", "{}")
        let firstID = try #require(first.record["id"] as? String)
        #expect(try await call("POST", "/v1/documents/data/records/$ingests/\(firstID)/chunks?model=people", lines).status == 200)
        func spooled() -> [String] {
            let files = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []
            return files.filter { $0.hasSuffix(".ndjson") }
        }
        #expect(spooled().count == 1, "the upload is spooled under the data directory")
        serve.kill()
        serve = try ServeProcess(dataDirectory: directory.path)
        #expect(spooled().isEmpty, "the restarted server removed the forgotten session's upload")
        let forgotten = try await call("GET", "/v1/documents/data/records/$ingests/\(firstID)", nil)
        #expect(forgotten.status == 404 && forgotten.errorCode == "INGEST_SESSION_NOT_FOUND")
        #expect(try await call("POST", "/v1/documents/data/records/people/count", "{}").record["count"] as? Int == 0)
        // Killed right after the commit: all 3,000 or none.
        let second = try await call("POST", "/v1/documents/data/records/$ingests", "{}")
        let secondID = try #require(second.record["id"] as? String)
        #expect(try await call("POST", "/v1/documents/data/records/$ingests/\(secondID)/chunks?model=people", lines).status == 200)
        #expect(try await call("POST", "/v1/documents/data/records/$ingests/\(secondID)/commit", "{}").status == 202)
        serve.kill()
        let store = try DocumentStore(path: directory.path + "/accord.sqlite")
        let model = try #require(try ModelSchema.models(json: try AnyValue(jsonText: Self.schema)).first)
        let count = try RecordLayout.records(of: model, in: try store.load("data")).records.count
        #expect(count == 0 || count == 3000, "a killed ingest left \(count) records")
        try store.close()
    }
}
