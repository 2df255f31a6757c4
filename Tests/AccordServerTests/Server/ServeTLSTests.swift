import AccordNet
import AccordTesting
import Foundation
import Testing

/// `accord serve --tls-cert --tls-key`, as an operator runs it: wss:// sync for our
/// client and for stock Yjs clients (pycrdt-websocket), https:// REST, refusal of a
/// client that does not trust the certificate (logged and counted in /metrics), and
/// SIGHUP picking up new files.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ServeTLSTests {
    private static var clientScript: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/pycrdt_ws_client.py").path
    }

    /// The certificate files at fixed paths in `directory`, as an operator keeps them.
    private static func install(_ pki: TestPKI, in directory: TemporaryDirectory) throws -> (certificate: String, key: String) {
        let files = (directory.path + "/server.pem", directory.path + "/server.key")
        for (source, target) in [(pki.certificateFile, files.0), (pki.keyFile, files.1)] {
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: source, toPath: target)
        }
        return files
    }

    /// Our sync step 1 on a document connection, answered with the server's step 2.
    private static func syncs(_ client: WebSocketClient, _ events: EventStream) async throws -> Bool {
        let before = events.count
        client.send([0, 0, 1, 0])
        return try await events.arrives(after: before, within: .seconds(20)) { $0.prefix(2) == [0, 1] }
    }

    @Test func wssSyncHTTPSAndStockYjsClientsThroughAccordServe() async throws {
        let pki = try TestPKI()
        let directory = try TemporaryDirectory()
        let files = try Self.install(pki, in: directory)
        let serve = try ServeProcess(
            dataDirectory: directory.path + "/data", extraArguments: ["--tls-cert", files.certificate, "--tls-key", files.key])
        let trust = ClientTLS(trustedCertificatesFile: pki.caFile)
        let base = "localhost:\(serve.port)"

        let swift = try await WebSocketClient.connect(to: "wss://\(base)/v1/sync/tls-doc?token=\(serve.token)", tls: trust)
        let swiftEvents = EventStream(swift)
        #expect(try await Self.syncs(swift, swiftEvents), "no sync step 2 over wss://")

        let http = try HTTPClient(tls: trust)
        let health = try await http.send(HTTPClientRequest(.get, "https://\(base)/healthz"), timeout: .seconds(10))
        #expect(health.status == 200)
        let list = try await http.send(
            HTTPClientRequest(.get, "https://\(base)/v1/documents/tls-doc", headers: [("Authorization", "Bearer \(serve.token)")]),
            timeout: .seconds(10))
        #expect(list.status == 200, "\(String(decoding: list.body, as: UTF8.self))")

        // Two stock Yjs clients over wss://, trusting the test CA, converge through the server.
        guard let python = ProcessInfo.processInfo.environment["ACCORD_PYTHON"], !python.isEmpty else {
            throw TestFailure("ACCORD_PYTHON is not set; run `make test`, which sets up the pycrdt-websocket venv")
        }
        let url = "wss://\(base)/v1/sync/tls-doc?token=\(serve.token)"
        let clients = try ["a", "b"].map { name in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [Self.clientScript, "--url", url, "--name", name, "--edits", "3", "--expect-length", "24",
                                 "--timeout", "60", "--cafile", pki.caFile]
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            return (process, output, errors)
        }
        var texts: [String] = []
        for (process, output, errors) in clients {
            let result = try await onThread { () -> (Int32, String, String) in
                process.waitUntilExit()
                let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                return (process.terminationStatus, out, err)
            }
            #expect(result.0 == 0, "pycrdt client over wss failed: \(result.2)")
            let line = try #require(result.1.split(separator: "\n").last)
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            texts.append(json?["text"] as? String ?? "")
        }
        #expect(texts.count == 2 && texts[0] == texts[1] && texts[0].count == 24)

        // A client that does not trust the test CA is refused.
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(to: "wss://\(base)/v1/sync/tls-doc?token=\(serve.token)")
        }
        // ... and counted for the operator (the server reads the client's alert on its own time).
        var failures: Int?
        for _ in 0..<50 {
            let metrics = try await http.send(HTTPClientRequest(.get, "https://\(base)/metrics"), timeout: .seconds(10))
            failures = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix("accord_tls_failures_total ") }.flatMap { Int($0.split(separator: " ")[1]) }
            if (failures ?? 0) >= 1 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect((failures ?? 0) >= 1, "accord_tls_failures_total: \(String(describing: failures))")
        swift.close()
        #expect(serve.terminate() == 0)
        let log = (try? String(contentsOfFile: serve.stderrPath, encoding: .utf8)) ?? ""
        #expect(log.contains("wss://"), "\(log)")
        #expect(log.contains("NET_TLS_HANDSHAKE_FAILED"), "the refused handshake was not logged: \(log)")
    }

    @Test func sighupServesNewFilesToNewConnectionsAndKeepsTheOldWhenTheyAreBad() async throws {
        let first = try TestPKI()
        let second = try TestPKI()
        let directory = try TemporaryDirectory()
        let files = try Self.install(first, in: directory)
        let serve = try ServeProcess(
            dataDirectory: directory.path + "/data", extraArguments: ["--tls-cert", files.certificate, "--tls-key", files.key])
        let url = "wss://localhost:\(serve.port)/v1/sync/reload?token=\(serve.token)"
        let old = try await WebSocketClient.connect(to: url, tls: ClientTLS(trustedCertificatesFile: first.caFile))
        let oldEvents = EventStream(old)
        #expect(try await Self.syncs(old, oldEvents))

        // A bad certificate file: SIGHUP keeps the previous certificate and says why.
        try "garbage\n".write(toFile: files.certificate, atomically: true, encoding: .utf8)
        kill(serve.process.processIdentifier, SIGHUP)
        try await eventually("the failed reload was logged", timeout: .seconds(10)) {
            ((try? String(contentsOfFile: serve.stderrPath, encoding: .utf8)) ?? "").contains("kept the previous certificate")
        }
        let same = try await WebSocketClient.connect(to: url, tls: ClientTLS(trustedCertificatesFile: first.caFile))
        same.close()

        _ = try Self.install(second, in: directory)
        kill(serve.process.processIdentifier, SIGHUP)
        try await eventually("the reload was logged", timeout: .seconds(10)) {
            ((try? String(contentsOfFile: serve.stderrPath, encoding: .utf8)) ?? "").contains("reloaded")
        }
        // New connections get the second authority's certificate.
        let new = try await WebSocketClient.connect(to: url, tls: ClientTLS(trustedCertificatesFile: second.caFile))
        let newEvents = EventStream(new)
        #expect(try await Self.syncs(new, newEvents))
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(to: url, tls: ClientTLS(trustedCertificatesFile: first.caFile))
        }
        // The connection from before the reload still syncs.
        #expect(try await Self.syncs(old, oldEvents), "the connection from before the reload stopped working")
        old.close()
        new.close()
        #expect(serve.terminate() == 0)
    }

    @Test func unusableCertificateFilesStopTheServerWithACode() throws {
        let pki = try TestPKI()
        let directory = try TemporaryDirectory()
        guard let binary = BuiltProduct.url(named: "accord", environment: "ACCORD_CLI") else {
            throw TestFailure("the accord binary is not built")
        }
        for arguments in [
            ["--tls-cert", "/nonexistent/server.pem", "--tls-key", pki.keyFile],
            ["--tls-cert", pki.keyFile, "--tls-key", pki.keyFile],
            ["--tls-cert", pki.certificateFile],
        ] {
            let process = Process()
            process.executableURL = binary
            process.arguments = ["serve", "--dev", "--port", "0", "--data", directory.path] + arguments
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = Pipe()
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus != 0, "\(arguments) started a server")
            #expect(text.contains("INVALID_ARGUMENT") || text.contains("--tls-key"), "\(arguments): \(text)")
            #expect(!text.contains("listening"))
            if arguments.count == 4 { #expect(text.contains("NET_TLS_CONFIGURATION"), "\(text)") }
        }
    }
}

/// A WebSocket client's messages, collected as they arrive.
final class EventStream: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `messages` is only touched under `lock`.
    private let lock = NSLock()
    private var messages: [[UInt8]] = []

    init(_ client: WebSocketClient) {
        let events = client.events
        Task { [self] in
            for await event in events {
                if case .message(let bytes) = event { lock.withLock { messages.append(bytes) } }
            }
        }
    }

    var count: Int { lock.withLock { messages.count } }

    /// True once a message past the first `start` satisfies `matches`; throws after `timeout`.
    func arrives(after start: Int, within timeout: Duration, _ matches: @escaping ([UInt8]) -> Bool) async throws -> Bool {
        try await eventually("a matching message", timeout: timeout) {
            lock.withLock { messages[start...].contains(where: matches) }
        }
        return true
    }
}
