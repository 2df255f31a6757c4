import Foundation
import Testing

@testable import AccordNet

/// The path a route sees is the one the client sent, percent-decoded strictly; a path
/// that cannot be decoded is refused with 400 (issue 14, item 5).
@Suite(.timeLimit(.minutes(1)))
struct RequestPathTests {
    private static func makeServer(seen: EventLog<HTTPRequest>? = nil) throws -> WebSocketServer {
        var routes = HTTPRoutes()
        routes.add(.get, prefix: "/v1/documents/") { request in
            HTTPResponse(status: 200, contentType: "text/plain", body: Array(request.path.utf8))
        }
        return try WebSocketServer(
            .init(port: 0, routes: routes, shouldUpgrade: { request in
                seen?.append(request)
                return false
            }))
    }

    @Test(arguments: [
        ("/v1/documents/x/../y", "/v1/documents/x/../y"),
        ("/v1/documents/./c2", "/v1/documents/./c2"),
        ("/v1/documents/p//q", "/v1/documents/p//q"),
        ("/v1/documents/a+b", "/v1/documents/a+b"),
        ("/v1/documents/a%2Bb", "/v1/documents/a+b"),
        ("/v1/documents/a%2Fb", "/v1/documents/a/b"),
        ("/v1/documents/caf%C3%A9", "/v1/documents/café"),
        ("/v1/documents/x/..", "/v1/documents/x/.."),
    ])
    func pathReachesTheRouteAsSent(sent: String, seen: String) async throws {
        let server = try Self.makeServer()
        let reply = try await rawExchange(port: server.port, [rawRequest("GET", sent, headers: ["Connection: close"])])
        let response = try #require(reply.responses.first)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == seen)
        await server.stop()
    }

    @Test(arguments: [
        "/v1/documents/abc%0adef", "/v1/documents/abc%0Ddef", "/v1/documents/a%00b", "/v1/documents/%ff",
        "/v1/documents/%C3", "/v1/documents/%zz", "/v1/documents/%4", "/v1/documents/%7F", "v1/documents/x",
    ])
    func undecodablePathIsRefusedWith400(sent: String) async throws {
        let server = try Self.makeServer()
        let reply = try await rawExchange(port: server.port, [rawRequest("GET", sent)], window: .seconds(4))
        let response = try #require(reply.responses.first, "\(reply.text)")
        #expect(response.status == 400)
        #expect(errorCode(response.body) == "MALFORMED_REQUEST")
        #expect(reply.closed)
        await server.stop()
    }

    @Test func queryIsDecodedWithPlusAsSpace() async throws {
        var routes = HTTPRoutes()
        routes.add(.get, "/q") { request in
            HTTPResponse(status: 200, text: request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "|"))
        }
        let server = try WebSocketServer(.init(port: 0, routes: routes))
        let response = try await httpRequest(port: server.port, path: "/q?token=a%2Bb&name=x+y&flag&e=%3D")
        #expect(String(decoding: response.body, as: UTF8.self) == "token=a+b|name=x y|flag=|e==")
        await server.stop()
    }

    /// The upgrade handler sees the WebSocket request's path as sent too.
    @Test func upgradePathIsSeenAsSent() async throws {
        let seen = EventLog<HTTPRequest>()
        let server = try Self.makeServer(seen: seen)
        let upgrade = WebSocketHandshake.request(path: "/v1/sync/x/../y")
        let reply = try await rawExchange(port: server.port, [upgrade], window: .seconds(2))
        #expect(seen.all.map(\.path) == ["/v1/sync/x/../y"])
        #expect(reply.responses.first?.status == 403)
        await server.stop()
    }

    @Test func undecodableUpgradePathIsRefusedWith400() async throws {
        let seen = EventLog<HTTPRequest>()
        let server = try Self.makeServer(seen: seen)
        let reply = try await rawExchange(
            port: server.port, [WebSocketHandshake.request(path: "/v1/sync/abc%0adef")], window: .seconds(2))
        #expect(reply.responses.first?.status == 400)
        #expect(seen.all.isEmpty)
        await server.stop()
    }
}
