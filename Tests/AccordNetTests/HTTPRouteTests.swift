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
        return try WebSocketServer(.init(port: 0, routes: routes))
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
}
