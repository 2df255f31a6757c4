import Foundation
import Testing

@testable import AccordNet

@Suite(.timeLimit(.minutes(1)))
struct HTTPRouteTests {
    private func makeServer() throws -> WebSocketServer {
        var routes = HTTPRoutes()
        routes.add(.get, "/hello") { request in
            HTTPResponse(
                status: 200, text: "hello \(request.queryValue("name") ?? "?")",
                headers: [("X-Accord", "yes"), ("Cache-Control", "no-store")])
        }
        routes.add(.post, "/echo") { request in
            HTTPResponse(status: 201, contentType: "application/octet-stream", body: request.body)
        }
        routes.add(.get, "/auth") { request in
            HTTPResponse(status: 200, text: request.header("Authorization") ?? "none")
        }
        routes.add(.get, prefix: "/items/") { request in
            HTTPResponse(status: 200, text: "item \(request.path.dropFirst("/items/".count))")
        }
        routes.add(.get, prefix: "/items/special/") { _ in HTTPResponse(status: 200, text: "special") }
        routes.add(.get, "/items/exact") { _ in HTTPResponse(status: 200, text: "exact") }
        return try WebSocketServer(.init(port: 0, routes: routes))
    }

    @Test func prefixRoutesMatchLongestPrefixAfterExactRoutes() async throws {
        let server = try makeServer()
        func body(_ path: String) async throws -> String {
            String(decoding: try await httpRequest(port: server.port, path: path).body, as: UTF8.self)
        }
        #expect(try await body("/items/42") == "item 42")
        #expect(try await body("/items/special/1") == "special")
        #expect(try await body("/items/exact") == "exact")
        let wrongMethod = try await httpRequest(port: server.port, method: "PUT", path: "/items/42")
        #expect(wrongMethod.status == 405)
        await server.stop()
    }

    @Test func getRouteReturnsStatusBodyAndHeaders() async throws {
        let server = try makeServer()
        #expect(server.port > 0)
        let response = try await httpRequest(port: server.port, path: "/hello?name=ada")
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello ada")
        #expect(response.headers["x-accord"] == "yes")
        #expect(response.headers["cache-control"] == "no-store")
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(response.headers["content-length"] == "9")
        await server.stop()
    }

    @Test func requestHeadersReachTheRoute() async throws {
        let server = try makeServer()
        let response = try await httpRequest(port: server.port, path: "/auth", headers: ["Authorization": "Bearer t0k"])
        #expect(String(decoding: response.body, as: UTF8.self) == "Bearer t0k")
        await server.stop()
    }

    @Test func unknownRouteIs404AndWrongMethodIs405() async throws {
        let server = try makeServer()
        let missing = try await httpRequest(port: server.port, path: "/nope")
        #expect(missing.status == 404)
        let wrongMethod = try await httpRequest(port: server.port, method: "DELETE", path: "/hello")
        #expect(wrongMethod.status == 405)
        await server.stop()
    }

    @Test(arguments: [1, 1000, 200_000])
    func postBodyRoundTrips(size: Int) async throws {
        let server = try makeServer()
        let body = pattern(size, seed: 7)
        let response = try await httpRequest(port: server.port, method: "POST", path: "/echo", body: body)
        #expect(response.status == 201)
        #expect(response.body == body)
        await server.stop()
    }

    /// Two exchanges on one keep-alive connection: the second must not see the first's body.
    @Test func keepAliveConnectionStartsEachRequestClean() async throws {
        let server = try makeServer()
        let port = server.port
        let (first, second) = try await onThread { () -> (RawHTTPResponse, RawHTTPResponse) in
            let fd = try connectTCP("127.0.0.1", port)
            defer { close(fd) }
            try sendAll(fd, Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcde".utf8))
            let first = try readHTTPResponse(fd)
            try sendAll(fd, Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nxy".utf8))
            let second = try readHTTPResponse(fd)
            return (first, second)
        }
        #expect(first.status == 201)
        #expect(first.body == Array("abcde".utf8))
        #expect(second.status == 201)
        #expect(second.body == Array("xy".utf8))
        await server.stop()
    }

    @Test func httpAndWebSocketShareThePort() async throws {
        var routes = HTTPRoutes()
        routes.add(.get, "/health") { _ in HTTPResponse(status: 200, text: "ok") }
        let server = try WebSocketServer(
            .init(routes: routes, onEvent: { event in
                if case .message(let connection, let bytes) = event { connection.send(bytes.reversed()) }
            }))
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/health")
        let response = try await httpRequest(port: server.port, path: "/health")
        #expect(response.status == 200)
        #expect(response.body == Array("ok".utf8))
        client.client.send([1, 2, 3])
        let reply = try await client.log.wait("reply") { _ in client.messages.first }
        #expect(reply == [3, 2, 1])
        client.client.close()
        _ = try await client.closed()
        await server.stop()
    }
}
