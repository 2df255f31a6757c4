import Foundation
import Testing

@testable import AccordNet

@Suite(.timeLimit(.minutes(1)))
struct ServerLifecycleTests {
    /// Listening sockets on `port` from /proc/net/tcp and tcp6: (file, local address hex).
    private func listeners(port: Int) throws -> [(String, String)] {
        let portHex = String(format: "%04X", port)
        var found: [(String, String)] = []
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: String(contentsOfFile:) gets only the first page (4 KiB,
            // ~26 sockets) of a /proc file, and the machine may have many more sockets.
            guard let handle = FileHandle(forReadingAtPath: file) else { continue }
            var data = Data()
            while case let chunk = handle.availableData, !chunk.isEmpty { data += chunk }
            try? handle.close()
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 3, fields[3] == "0A" else { continue }  // 0A: LISTEN
                let local = fields[1].split(separator: ":")
                if local.count == 2, local[1] == portHex { found.append((file, String(local[0]))) }
            }
        }
        return found
    }

    @Test func bindsOnlyTo127001() async throws {
        let server = try WebSocketServer(.init(host: "127.0.0.1", port: 0))
        let found = try listeners(port: server.port)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.0 == "/proc/net/tcp")
        #expect(found.first?.1 == "0100007F")  // 127.0.0.1, little-endian hex
        // 127.0.0.2 is loopback too: a wildcard listener would accept it.
        let port = server.port
        let viaOtherAddress = try await onThread { () -> Bool in
            guard let fd = try? connectTCP("127.0.0.2", port) else { return false }
            close(fd)
            return true
        }
        #expect(!viaOtherAddress)
        let viaBoundAddress = try await onThread { () -> Bool in
            let fd = try connectTCP("127.0.0.1", port)
            close(fd)
            return true
        }
        #expect(viaBoundAddress)
        await server.stop()
    }

    @Test func stopClosesConnectionsAndFreesThePort() async throws {
        let log = EventLog<WebSocketServerEvent>()
        var routes = HTTPRoutes()
        routes.add(.get, "/up") { _ in HTTPResponse(status: 200, text: "up") }
        let first = try WebSocketServer(.init(routes: routes, onEvent: { log.append($0) }))
        let port = first.port
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(port)/")
        _ = try await log.wait("opened") { $0.lazy.compactMap(\.opened).first }
        await first.stop()
        // stop() returned: the server saw the connection close, and the client sees it too.
        #expect(log.all.contains { $0.closeCode != nil })
        _ = try await client.closed()
        #expect(try listeners(port: port).isEmpty)
        // The same port is free again right away.
        let second = try WebSocketServer(.init(port: port, routes: routes))
        #expect(second.port == port)
        let response = try await httpRequest(port: port, path: "/up")
        #expect(response.status == 200)
        await second.stop()
        await second.stop()  // idempotent
    }

    @Test func portInUseIsListenFailed() async throws {
        let first = try WebSocketServer(.init())
        #expect(throws: NetError.self) { _ = try WebSocketServer(.init(port: first.port)) }
        do {
            _ = try WebSocketServer(.init(port: first.port))
        } catch NetError.Code.listenFailed {
        } catch {
            Issue.record("unexpected \(error)")
        }
        await first.stop()
    }

    @Test func errorCodesAreStable() {
        #expect(
            NetError.Code.all.map(\.rawValue) == [
                "NET_LISTEN_FAILED", "NET_INVALID_URL", "NET_CONNECT_FAILED", "NET_REQUEST_FAILED", "NET_TIMEOUT",
                "NET_CANCELLED", "NET_RESPONSE_TOO_LARGE", "NET_TLS_CONFIGURATION", "NET_TLS_HANDSHAKE_FAILED",
                "NET_TLS_CERTIFICATE_INVALID",
            ])
    }

    @Test func parsesWebSocketURLs() throws {
        let url = try WebSocketURL("ws://127.0.0.1:8080/v1/sync/a?token=x")
        #expect(url == WebSocketURL(host: "127.0.0.1", port: 8080, pathAndQuery: "/v1/sync/a?token=x"))
        #expect(try WebSocketURL("ws://example.com") == WebSocketURL(host: "example.com", port: 80, pathAndQuery: "/"))
        #expect(try WebSocketURL("ws://[::1]:9/?a=b") == WebSocketURL(host: "::1", port: 9, pathAndQuery: "/?a=b"))
        #expect(try WebSocketURL("wss://x/") == WebSocketURL(host: "x", port: 443, pathAndQuery: "/", isSecure: true))
        for bad in ["http://x/", "https://x/", "ws://:80/", "ws://x:0/", "ws://x:abc/", "wss://x:0/"] {
            #expect(throws: NetError.self, "\(bad)") { _ = try WebSocketURL(bad) }
        }
    }
}
