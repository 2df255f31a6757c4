import AccordTesting
@testable import AccordNet
import Foundation
import Testing

/// `wss://` and `https://` from AccordNet's clients to a real TLS server: pycrdt-websocket
/// behind Hypercorn with a certificate from a throwaway CA the test makes with the
/// openssl CLI. The server's certificate must chain to a trusted authority and name the
/// host the URL names; anything else fails the connection, never silently proceeds.
@Suite(.serialized) struct ClientTLSTests {
    @Test func wssReachesATLSServerAndSyncs() async throws {
        let pki = try TestPKI()
        let server = try TLSReferenceServer(pki: pki)
        defer { server.stop() }
        let client = try await WebSocketClient.connect(
            to: "wss://localhost:\(server.port)/room-1", tls: ClientTLS(trustedCertificatesFile: pki.caFile))
        // Our sync step 1 with an empty state vector; the server answers with its step 2
        // (message 0, step 1), whatever else it sends first.
        client.send([0, 0, 1, 0])
        let answered = try await withTimeout(seconds: 20) {
            for await event in client.events {
                if case .message(let bytes) = event, bytes.prefix(2) == [0, 1] { return true }
                if case .closed = event { return false }
            }
            return false
        }
        #expect(answered, "no sync step 2 over wss://")
        client.close()
    }

    @Test func aCertificateFromAnUntrustedAuthorityIsRefused() async throws {
        let pki = try TestPKI()
        let server = try TLSReferenceServer(pki: pki)
        defer { server.stop() }
        // The system's authorities do not know the test's CA.
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(to: "wss://localhost:\(server.port)/room-1")
        }
        let http = try HTTPClient(tls: .system)
        await #expect(throws: NetError.self) {
            _ = try await http.send(HTTPClientRequest(.get, "https://localhost:\(server.port)/"), timeout: .seconds(10))
        }
    }

    @Test func aCertificateForAnotherNameIsRefused() async throws {
        let pki = try TestPKI(serverName: "elsewhere.example")
        let server = try TLSReferenceServer(pki: pki)
        defer { server.stop() }
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(
                to: "wss://localhost:\(server.port)/room-1", tls: ClientTLS(trustedCertificatesFile: pki.caFile))
        }
    }

    @Test func httpsRequestsGetTheServersAnswer() async throws {
        let pki = try TestPKI()
        let server = try TLSReferenceServer(pki: pki)
        defer { server.stop() }
        let http = try HTTPClient(tls: ClientTLS(trustedCertificatesFile: pki.caFile))
        // Hypercorn answers a plain GET on a WebSocket-only app with an HTTP error
        // status: what matters is that it came back over TLS.
        let response = try await http.send(HTTPClientRequest(.get, "https://localhost:\(server.port)/"), timeout: .seconds(10))
        #expect((400..<600).contains(response.status))
    }

    @Test func anHTTPClientWithoutTLSSettingsRefusesHTTPSWithACode() async throws {
        let http = try HTTPClient()
        do {
            _ = try await http.send(HTTPClientRequest(.get, "https://localhost:1/"), timeout: .seconds(5))
            Issue.record("an https request went out without TLS settings")
        } catch {
            #expect((error as? NetError)?.code == .tlsConfiguration)
        }
    }

    @Test func anUnreadableTrustFileIsACodedError() async throws {
        do {
            _ = try HTTPClient(tls: ClientTLS(trustedCertificatesFile: "/nonexistent/ca.pem"))
            Issue.record("an unreadable trust file was accepted")
        } catch {
            #expect((error as? NetError)?.code == .tlsConfiguration)
        }
    }

    /// Readable, but OpenSSL finds no certificate in it: refused when the client is made,
    /// not at the first connection.
    @Test func aTrustFileWithoutCertificatesIsACodedError() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-ca-\(UUID()).pem").path
        try Data("this is not a certificate\n".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        do {
            _ = try HTTPClient(tls: ClientTLS(trustedCertificatesFile: file))
            Issue.record("a trust file without certificates was accepted")
        } catch {
            #expect(error.code == .tlsConfiguration)
        }
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(to: "wss://localhost:1/x", tls: ClientTLS(trustedCertificatesFile: file))
        }
    }

    @Test func secureURLsDefaultToPort443AndSayTheyAreSecure() throws {
        let secure = try WebSocketURL("wss://example.org/v1/sync")
        #expect(secure.isSecure && secure.port == 443 && secure.hostHeader == "example.org")
        let explicit = try WebSocketURL("WSS://example.org:8443/x?y=1")
        #expect(explicit.isSecure && explicit.port == 8443 && explicit.hostHeader == "example.org:8443")
        #expect(explicit.pathAndQuery == "/x?y=1")
        let https = try WebSocketURL("https://[::1]/v1", scheme: "http://")
        #expect(https.isSecure && https.host == "::1" && https.hostHeader == "[::1]")
        let plain = try WebSocketURL("ws://example.org/")
        #expect(!plain.isSecure && plain.port == 80)
        #expect(throws: NetError.self) { _ = try WebSocketURL("https://example.org/") }
        #expect(throws: NetError.self) { _ = try WebSocketURL("wss://example.org/", scheme: "http://") }
    }

    /// `body`'s result, or a failure once `seconds` pass.
    private func withTimeout<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw NetError(.timedOut, "no answer within \(seconds) s")
            }
            return value
        }
    }
}

/// scripts/pycrdt_ws_server.py (pycrdt-websocket behind Hypercorn) serving TLS with the
/// PKI's server certificate, on a port the kernel chose. Needs `ACCORD_PYTHON` (the venv
/// `make test` makes).
final class TLSReferenceServer {
    let process = Process()
    let port: Int

    init(pki: TestPKI) throws {
        guard let python = ProcessInfo.processInfo.environment["ACCORD_PYTHON"], !python.isEmpty else {
            throw NetError(.connectFailed, "ACCORD_PYTHON is not set: the TLS tests serve with pycrdt-websocket from the venv `make test` makes")
        }
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/pycrdt_ws_server.py").path
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, "--port", "0", "--certfile", pki.certificateFile, "--keyfile", pki.keyFile]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // One line, `listening <port>`, once the socket accepts.
        var line: [UInt8] = []
        let reader = output.fileHandleForReading
        while !line.contains(0x0A) {
            let data = reader.availableData
            if data.isEmpty { break }
            line += data
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("listening "), let port = Int(text.dropFirst("listening ".count)) else {
            process.terminate()
            throw NetError(.connectFailed, "the TLS reference server did not start: \(text)")
        }
        self.port = port
    }

    /// SIGTERM, then SIGKILL if it is still there after 1 s (Hypercorn waits on open TLS
    /// connections; nothing it holds matters to these tests).
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(1)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { usleep(20_000) }
    }
}
