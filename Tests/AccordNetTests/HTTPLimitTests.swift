import Foundation
import Testing

@testable import AccordNet

/// Requests that must be refused with a status and a coded body, never a bare close
/// (issue 14, items 2 and 8).
@Suite(.timeLimit(.minutes(1)))
struct HTTPLimitTests {
    @Test func connectIsRefusedAndClosed() async throws {
        let server = try HTTPFramingTests.makeServer()
        let reply = try await rawExchange(port: server.port, [Array("CONNECT x:1 HTTP/1.1\r\n\r\n".utf8)], window: .seconds(4))
        #expect(reply.closed)
        let response = try #require(reply.responses.first)
        #expect(response.status == 501 || response.status == 405)
        #expect(errorCode(response.body) == "METHOD_NOT_SUPPORTED")
        await server.stop()
    }

    @Test func unknownMethodIsRefused() async throws {
        let server = try HTTPFramingTests.makeServer()
        let reply = try await rawExchange(port: server.port, [rawRequest("BREW", "/healthz")], window: .seconds(4))
        #expect(reply.responses.first?.status == 501)
        #expect(reply.closed)
        await server.stop()
    }

    @Test func chunkedBodyIsRefusedWith411() async throws {
        let server = try HTTPFramingTests.makeServer()
        let bytes = rawRequest("POST", "/echo", headers: ["Transfer-Encoding: chunked"]) + Array("1\r\na\r\n0\r\n\r\n".utf8)
        let reply = try await rawExchange(port: server.port, [bytes], window: .seconds(4))
        let response = try #require(reply.responses.first)
        #expect(response.status == 411)
        #expect(errorCode(response.body) == "LENGTH_REQUIRED")
        #expect(reply.closed)
        await server.stop()
    }

    @Test func bodyOverTheLimitIsRefusedWith413() async throws {
        let server = try HTTPFramingTests.makeServer { $0.maxHTTPBodySize = 100 }
        let bytes = rawRequest("POST", "/echo", body: String(repeating: "z", count: 101))
        let reply = try await rawExchange(port: server.port, [bytes], window: .seconds(4))
        let response = try #require(reply.responses.first)
        #expect(response.status == 413)
        #expect(errorCode(response.body) == "BODY_TOO_LARGE")
        #expect(reply.closed)
        await server.stop()
    }

    @Test func headersOverTheLimitAreRefusedWith431() async throws {
        let server = try HTTPFramingTests.makeServer()
        let token = String(repeating: "t", count: 20_000)
        let reply = try await rawExchange(
            port: server.port, [rawRequest("GET", "/healthz", headers: ["Authorization: Bearer \(token)"])],
            window: .seconds(4))
        let response = try #require(reply.responses.first)
        #expect(response.status == 431)
        #expect(errorCode(response.body) == "HEADERS_TOO_LARGE")
        #expect(reply.closed)
        await server.stop()
    }

    /// A token of 10 KB is under the default 16 KB limit and reaches the route.
    @Test func longTokenUnderTheLimitReachesTheRoute() async throws {
        var routes = HTTPRoutes()
        routes.add(.get, "/auth") { request in HTTPResponse(status: 200, text: request.header("authorization") ?? "") }
        let server = try WebSocketServer(.init(port: 0, routes: routes))
        let token = "Bearer " + String(repeating: "t", count: 10_000)
        let response = try await httpRequest(port: server.port, path: "/auth", headers: ["Authorization": token])
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == token)
        await server.stop()
    }

    /// A partial request of any method is closed at the header timeout.
    @Test(arguments: ["CONNECT x:1 HTTP/1.1\r\n", "GET /healthz HTTP/1.1\r\nHost: x\r\n", "G"])
    func partialRequestClosesAtTheHeaderTimeout(partial: String) async throws {
        let server = try HTTPFramingTests.makeServer { $0.headerTimeoutSeconds = 1 }
        let reply = try await rawExchange(port: server.port, [Array(partial.utf8)], window: .seconds(4))
        #expect(reply.closed, "still open after 4 s")
        await server.stop()
    }

    @Test func connectionsPerAddressAreCapped() async throws {
        let refusals = EventLog<HTTPRefusal>()
        let server = try HTTPFramingTests.makeServer {
            $0.maxConnectionsPerAddress = 2
            $0.onRefusal = { refusals.append($0) }
        }
        let port = server.port
        let (third, afterClose) = try await onThread { () -> (RawReply, RawReply) in
            let first = try connectTCP("127.0.0.1", port)
            let second = try connectTCP("127.0.0.1", port)
            usleep(200_000)
            let thirdFD = try connectTCP("127.0.0.1", port)
            defer { close(thirdFD) }
            let third = try readReply(thirdFD, window: .seconds(3), limit: 4096)
            close(first)
            close(second)
            usleep(200_000)
            let fd = try connectTCP("127.0.0.1", port)
            defer { close(fd) }
            try sendAll(fd, rawRequest("GET", "/healthz", headers: ["Connection: close"]))
            return (third, try readReply(fd, window: .seconds(3), limit: 4096))
        }
        #expect(third.responses.first?.status == 503)
        #expect(errorCode(third.responses.first?.body ?? []) == "TOO_MANY_CONNECTIONS")
        #expect(third.closed)
        #expect(afterClose.responses.first?.status == 200)
        #expect(refusals.all.map(\.code) == ["TOO_MANY_CONNECTIONS"])
        await server.stop()
    }

    /// Near the descriptor limit only the reserved paths are served.
    @Test func nearTheDescriptorLimitOnlyReservedPathsAreServed() async throws {
        let server = try HTTPFramingTests.makeServer {
            $0.descriptorLimit = 0
            $0.reservedPaths = ["/healthz"]
        }
        let health = try await rawExchange(port: server.port, [rawRequest("GET", "/healthz")], window: .seconds(3))
        #expect(health.responses.first?.status == 200)
        #expect(health.closed, "a reserve connection is closed after one answer")
        let other = try await rawExchange(port: server.port, [rawRequest("POST", "/echo", body: "a")], window: .seconds(3))
        #expect(other.responses.first?.status == 503)
        #expect(errorCode(other.responses.first?.body ?? []) == "SERVER_BUSY")
        await server.stop()
    }
}
