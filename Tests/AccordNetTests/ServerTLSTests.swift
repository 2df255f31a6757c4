import AccordTesting
import Foundation
import Testing

@testable import AccordNet

/// `WebSocketServer` with a certificate (`Configuration.tls`): our own OpenSSL session per
/// connection over the raw sockets lws adopts. The clients are AccordNet's own, which
/// check the certificate through lws (a separate OpenSSL use), with a throwaway CA.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ServerTLSTests {
    /// An echo server with a `GET /hello` route, serving TLS with `pki`'s certificate.
    private static func tlsServer(
        _ tls: ServerTLS, log: EventLog<WebSocketServerEvent>, headerTimeoutSeconds: Int = 10
    ) throws -> WebSocketServer {
        var routes = HTTPRoutes()
        routes.add(.get, "/hello") { _ in HTTPResponse(status: 200, text: "hello over tls\n") }
        routes.add(.post, "/echo") { request in HTTPResponse(status: 200, contentType: "application/octet-stream", body: request.body) }
        // A streamed body (256 KiB slices through TLS), as blob downloads are served.
        routes.add(.get, "/stream") { _ in HTTPResponse(status: 200, bodyStream: PatternStream(length: 1_000_000)) }
        var configuration = WebSocketServer.Configuration(
            port: 0, routes: routes, headerTimeoutSeconds: headerTimeoutSeconds,
            onEvent: { event in
                log.append(event)
                if case .message(let connection, let bytes) = event { connection.send(bytes) }
            })
        configuration.tls = tls
        return try WebSocketServer(configuration)
    }

    private static func trusting(_ pki: TestPKI) -> ClientTLS { ClientTLS(trustedCertificatesFile: pki.caFile) }

    @Test func wssEchoesAndHTTPSAnswersWithTheServersCertificate() async throws {
        let pki = try TestPKI()
        let failures = EventLog<NetError>()
        let tls = try ServerTLS(certificateFile: pki.certificateFile, keyFile: pki.keyFile, onFailure: { failures.append($0) })
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.tlsServer(tls, log: log)
        let client = RecordedClient(
            try await WebSocketClient.connect(to: "wss://localhost:\(server.port)/room", tls: Self.trusting(pki)))
        for (index, size) in [0, 1, 125, 70_000].enumerated() {
            let message = pattern(size, seed: UInt8(index))
            client.client.send(message)
            let echoed = try await client.log.wait("echo of \(size) bytes") { _ in
                client.messages.count > index ? client.messages[index] : nil
            }
            #expect(echoed == message, "size \(size)")
        }
        let http = try HTTPClient(tls: Self.trusting(pki))
        let response = try await http.send(HTTPClientRequest(.get, "https://localhost:\(server.port)/hello"), timeout: .seconds(10))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello over tls\n")
        // Keep-alive: a second request on the same client, and a body both ways.
        let body = pattern(300_000, seed: 9)
        let echoed = try await http.send(
            HTTPClientRequest(.post, "https://localhost:\(server.port)/echo", body: body), timeout: .seconds(10))
        #expect(echoed.status == 200 && echoed.body == body)
        let streamed = try await http.send(HTTPClientRequest(.get, "https://localhost:\(server.port)/stream"), timeout: .seconds(20))
        #expect(streamed.status == 200 && streamed.body == pattern(1_000_000, seed: 3))
        client.client.close()
        #expect(try await client.closed().code == 1000)
        #expect(failures.all.isEmpty, "\(failures.all)")
        await server.stop()
    }

    /// Each `wss://` client makes its own lws context, and their handshakes overlap.
    /// lws 4.1, told to initialise OpenSSL per context, renumbered the ex-data slot
    /// every handshake finds its connection by, so handshakes in flight failed ("can't
    /// get wsi from ssl privdata"); AccordNet no longer asks it to (docs/net.md).
    @Test func concurrentTLSClientsAllConnect() async throws {
        let pki = try TestPKI()
        let failures = EventLog<NetError>()
        let tls = try ServerTLS(certificateFile: pki.certificateFile, keyFile: pki.keyFile, onFailure: { failures.append($0) })
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.tlsServer(tls, log: log)
        let trust = Self.trusting(pki)
        let echoed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<24 {
                group.addTask {
                    let client = RecordedClient(
                        try await WebSocketClient.connect(to: "wss://localhost:\(server.port)/room-\(index)", tls: trust))
                    let message = pattern(1_000, seed: UInt8(index))
                    client.client.send(message)
                    let echo = try await client.log.wait("echo \(index)") { _ in client.messages.first }
                    client.client.close()
                    return echo == message
                }
            }
            var all = 0
            for try await ok in group where ok { all += 1 }
            return all
        }
        #expect(echoed == 24)
        #expect(failures.all.isEmpty, "\(failures.all)")
        await server.stop()
    }

    @Test func fourMegabyteMessagesPassIntactBothWays() async throws {
        let pki = try TestPKI()
        let tls = try ServerTLS(certificateFile: pki.certificateFile, keyFile: pki.keyFile)
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.tlsServer(tls, log: log)
        let client = RecordedClient(
            try await WebSocketClient.connect(to: "wss://localhost:\(server.port)/big", tls: Self.trusting(pki)))
        let large = pattern(4 << 20, seed: 7)
        client.client.send(large)
        let received = try await log.wait("the server received 4 MiB", timeout: .seconds(30)) { $0.lazy.compactMap(\.message).first }
        #expect(received == large)
        let echoed = try await client.log.wait("the 4 MiB echo", timeout: .seconds(30)) { _ in client.messages.first }
        #expect(echoed.count == large.count)
        #expect(echoed == large)
        client.client.close()
        await server.stop()
    }

    @Test func aClientThatDoesNotTrustTheCertificateIsRefusedAndTheServerSaysWhy() async throws {
        let pki = try TestPKI()
        let failures = EventLog<NetError>()
        let tls = try ServerTLS(certificateFile: pki.certificateFile, keyFile: pki.keyFile, onFailure: { failures.append($0) })
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.tlsServer(tls, log: log)
        // The system's authorities do not know the test's CA: a distinct code, not a network failure.
        do {
            _ = try await WebSocketClient.connect(to: "wss://localhost:\(server.port)/room")
            Issue.record("a client that does not trust the certificate connected")
        } catch {
            #expect((error as? NetError)?.code == .tlsCertificateInvalid, "\(error)")
        }
        do {
            _ = try await HTTPClient(tls: .system).send(
                HTTPClientRequest(.get, "https://localhost:\(server.port)/hello"), timeout: .seconds(10))
            Issue.record("an https request to an untrusted certificate was answered")
        } catch {
            #expect((error as? NetError)?.code == .tlsCertificateInvalid, "\(error)")
        }
        // The client's alert ended the handshake on the server too, with OpenSSL's reason.
        let failure = try await failures.wait("the server reported the failed handshake") { $0.first }
        #expect(failure.code == .tlsHandshakeFailed)
        #expect(failure.message.contains("unknown ca") || failure.message.contains("certificate"), "\(failure.message)")
        // A plain ws:// client gets no WebSocket from a TLS-only port.
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/room")
        }
        #expect(log.all.compactMap(\.opened).isEmpty)
        // And the server still serves a client that trusts it.
        let good = try await WebSocketClient.connect(to: "wss://localhost:\(server.port)/room", tls: Self.trusting(pki))
        good.close()
        await server.stop()
    }

    @Test func garbageAndAStalledHandshakeAreClosedWhileOthersAreServed() async throws {
        let pki = try TestPKI()
        let failures = EventLog<NetError>()
        let tls = try ServerTLS(certificateFile: pki.certificateFile, keyFile: pki.keyFile, onFailure: { failures.append($0) })
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.tlsServer(tls, log: log, headerTimeoutSeconds: 1)
        let port = server.port
        // Plain HTTP instead of a ClientHello: an alert at most, then the close.
        let garbage = try await onThread { () -> (bytes: [UInt8], closed: Bool) in
            let connection = try RawTCPConnection(port: port)
            connection.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            return connection.receive(for: 5000)
        }
        #expect(garbage.closed, "the server kept a connection that sent garbage")
        #expect(!String(decoding: garbage.bytes, as: UTF8.self).contains("hello over tls"))
        let failure = try await failures.wait("the garbage was reported") { $0.first }
        #expect(failure.code == .tlsHandshakeFailed)
        // Half a ClientHello record (a header promising 512 bytes, 5 of them sent), then
        // silence: the header timeout (1 s here) closes it.
        let stalled = try await onThread { () -> (closed: Bool, milliseconds: Int) in
            let connection = try RawTCPConnection(port: port)
            let start = ContinuousClock.now
            connection.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03])
            let result = connection.receive(for: 8000)
            let elapsed = ContinuousClock.now - start
            return (result.closed, Int(elapsed.components.seconds * 1000))
        }
        #expect(stalled.closed, "a stalled handshake was kept open past the header timeout")
        #expect(stalled.milliseconds < 6000)
        // A client that connects and sends nothing is closed the same way.
        let silent = try await onThread { () -> Bool in
            let connection = try RawTCPConnection(port: port)
            return connection.receive(for: 8000).closed
        }
        #expect(silent)
        let client = RecordedClient(
            try await WebSocketClient.connect(to: "wss://localhost:\(port)/after", tls: Self.trusting(pki)))
        client.client.send([1, 2, 3])
        #expect(try await client.log.wait("echo after the bad clients") { _ in client.messages.first } == [1, 2, 3])
        client.client.close()
        await server.stop()
    }

    @Test func reloadServesTheNewCertificateToNewConnectionsAndOldOnesKeepWorking() async throws {
        let first = try TestPKI()
        let second = try TestPKI()
        // The server reads the files at their paths: an operator replaces them, then reloads.
        let directory = try TemporaryDirectory()
        let certificate = directory.path + "/server.pem"
        let key = directory.path + "/server.key"
        try FileManager.default.copyItem(atPath: first.certificateFile, toPath: certificate)
        try FileManager.default.copyItem(atPath: first.keyFile, toPath: key)
        let tls = try ServerTLS(certificateFile: certificate, keyFile: key)
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.tlsServer(tls, log: log)
        let old = RecordedClient(
            try await WebSocketClient.connect(to: "wss://localhost:\(server.port)/old", tls: Self.trusting(first)))

        // A file that is not a certificate: the reload fails with a code, the old one stays.
        try "not a certificate\n".write(toFile: certificate, atomically: true, encoding: .utf8)
        do {
            try tls.reload()
            Issue.record("a garbage certificate was loaded")
        } catch {
            #expect((error as? NetError)?.code == .tlsConfiguration)
        }
        let stillFirst = try await WebSocketClient.connect(to: "wss://localhost:\(server.port)/x", tls: Self.trusting(first))
        stillFirst.close()

        try FileManager.default.removeItem(atPath: certificate)
        try FileManager.default.removeItem(atPath: key)
        try FileManager.default.copyItem(atPath: second.certificateFile, toPath: certificate)
        try FileManager.default.copyItem(atPath: second.keyFile, toPath: key)
        try tls.reload()
        // New connections get the second authority's certificate...
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(to: "wss://localhost:\(server.port)/new", tls: Self.trusting(first))
        }
        let new = RecordedClient(
            try await WebSocketClient.connect(to: "wss://localhost:\(server.port)/new", tls: Self.trusting(second)))
        new.client.send([4, 5, 6])
        #expect(try await new.log.wait("echo on the new certificate") { _ in new.messages.first } == [4, 5, 6])
        // ...and the connection made before the reload keeps working on its session.
        old.client.send([7, 8, 9])
        #expect(try await old.log.wait("echo on the old connection") { _ in old.messages.first } == [7, 8, 9])
        old.client.close()
        new.client.close()
        await server.stop()
    }

    /// The outbound cap holds over TLS: a peer that finishes its handshake and upgrade
    /// and then never reads (Python's ssl module, a 4 KiB receive buffer) is closed as a
    /// slow consumer, and no more than the cap was ever queued for it.
    @Test func aTLSPeerThatNeverReadsIsClosedOnceItsQueuePassesTheCap() async throws {
        guard let python = ProcessInfo.processInfo.environment["ACCORD_PYTHON"], !python.isEmpty else {
            throw NetError(.connectFailed, "ACCORD_PYTHON is not set: run `make test`")
        }
        let pki = try TestPKI()
        let tls = try ServerTLS(certificateFile: pki.certificateFile, keyFile: pki.keyFile)
        let log = EventLog<WebSocketServerEvent>()
        let cap = 256 * 1024
        var configuration = WebSocketServer.Configuration(
            port: 0, maxQueuedBytes: cap,
            onEvent: { event in
                log.append(event)
                // 4 MiB of answers, 16 times the cap, to a peer that reads none.
                if case .opened(let connection) = event { for _ in 0..<64 { connection.send(pattern(64 * 1024)) } }
            })
        configuration.tls = tls
        let server = try WebSocketServer(configuration)
        let script = """
            import socket, ssl, sys, time
            raw = socket.socket()
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            raw.connect(("127.0.0.1", int(sys.argv[1])))
            s = ssl.create_default_context(cafile=sys.argv[2]).wrap_socket(raw, server_hostname="localhost")
            s.sendall(b"GET /stalled HTTP/1.1\\r\\nHost: localhost\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                      b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n")
            time.sleep(20)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, String(server.port), pki.caFile]
        try process.run()
        defer { process.terminate() }
        let closed = try await log.wait("slow consumer closed", timeout: .seconds(20)) { events in
            events.lazy.compactMap { event -> (UInt16, String)? in
                if case .closed(_, let code, let reason) = event { (code, reason) } else { nil }
            }.first
        }
        #expect(closed.0 == 1008)
        #expect(closed.1 == WebSocketServer.slowConsumerReason)
        let outbound = server.outbound
        #expect(outbound.slowConsumerCloses == 1)
        #expect(outbound.peakConnectionBytes <= cap, "queued \(outbound.peakConnectionBytes) bytes")
        #expect(outbound.queuedBytes == 0)
        await server.stop()
    }

    @Test func unusableFilesAreCodedErrors() throws {
        let pki = try TestPKI()
        let other = try TestPKI()
        let cases: [(String, String)] = [
            ("/nonexistent/server.pem", pki.keyFile),
            (pki.certificateFile, "/nonexistent/server.key"),
            (pki.keyFile, pki.keyFile),  // a key where the certificate should be
            (pki.certificateFile, other.keyFile),  // another certificate's key
        ]
        for (certificate, key) in cases {
            do {
                _ = try ServerTLS(certificateFile: certificate, keyFile: key)
                Issue.record("\(certificate) with \(key) was accepted")
            } catch {
                #expect(error.code == .tlsConfiguration, "\(error)")
                #expect(!error.message.isEmpty)
            }
        }
    }
}

/// `pattern(length, seed: 3)`, produced a slice at a time as `HTTPFront` asks for it.
private final class PatternStream: HTTPBodyStream, @unchecked Sendable {
    // Invariant behind @unchecked Sendable: read only on the server's service thread, one response at a time.
    let length: Int
    private let bytes: [UInt8]
    private var offset = 0

    init(length: Int) {
        self.length = length
        bytes = pattern(length, seed: 3)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, length - offset)
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
        offset += count
        return count
    }
}
