import Foundation
import Testing

@testable import AccordNet

/// Request framing against hostile byte sequences (issue 14, item 1): every request
/// gets exactly one response, in order, and no sequence makes the server loop.
@Suite(.timeLimit(.minutes(1)))
struct HTTPFramingTests {
    static func makeServer(_ tweak: (inout WebSocketServer.Configuration) -> Void = { _ in }) throws -> WebSocketServer {
        var routes = HTTPRoutes()
        for method in [HTTPMethod.put, .post] {
            routes.add(method, "/echo") { request in
                HTTPResponse(status: 200, contentType: "text/plain", body: request.body)
            }
        }
        routes.add(.get, "/healthz") { _ in HTTPResponse(status: 200, text: "ok") }
        var configuration = WebSocketServer.Configuration(port: 0, routes: routes)
        tweak(&configuration)
        return try WebSocketServer(configuration)
    }

    /// The probe's loop: two PUTs with 1-byte bodies in one segment.
    @Test func pipelinedRequestsWithBodiesGetOneResponseEach() async throws {
        let server = try Self.makeServer()
        let bytes = rawRequest("PUT", "/echo", body: "a") + rawRequest("PUT", "/echo", headers: ["Connection: close"], body: "b")
        let reply = try await rawExchange(port: server.port, [bytes])
        #expect(reply.bytes.count < 4096, "the server loops: \(reply.bytes.count) bytes")
        #expect(reply.statusLineCount == 2)
        #expect(reply.responses.map(\.body) == [Array("a".utf8), Array("b".utf8)])
        #expect(reply.closed)
        // Nobody else waits behind it.
        #expect(try await httpRequest(port: server.port, path: "/healthz").status == 200)
        await server.stop()
    }

    @Test func postWithEmptyBodyGetsOneResponse() async throws {
        let server = try Self.makeServer()
        let bytes = rawRequest("POST", "/echo", headers: ["Content-Length: 0", "Connection: close"])
        let reply = try await rawExchange(port: server.port, [bytes])
        #expect(reply.statusLineCount == 1, "\(reply.text)")
        #expect(reply.responses.first?.status == 200)
        #expect(reply.closed)
        await server.stop()
    }

    /// A body followed by the next request in the same segment: both answered, in order.
    @Test func bodyFollowedByNextRequestInOneSegment() async throws {
        let server = try Self.makeServer()
        let bytes = rawRequest("POST", "/echo", body: "xyz") + rawRequest("GET", "/healthz", headers: ["Connection: close"])
        let reply = try await rawExchange(port: server.port, [bytes])
        #expect(reply.statusLineCount == 2, "\(reply.text)")
        #expect(reply.responses.map(\.status) == [200, 200])
        #expect(reply.responses.map(\.body) == [Array("xyz".utf8), Array("ok".utf8)])
        await server.stop()
    }

    /// Sequential keep-alive requests, each after the previous answer: still in order.
    @Test func manyPipelinedRequestsAnsweredInOrder() async throws {
        let server = try Self.makeServer()
        var bytes: [UInt8] = []
        for index in 0..<20 { bytes += rawRequest("POST", "/echo", body: "r\(index)") }
        bytes += rawRequest("GET", "/healthz", headers: ["Connection: close"])
        let reply = try await rawExchange(port: server.port, [bytes])
        #expect(reply.statusLineCount == 21)
        #expect(reply.responses.dropLast().map { String(decoding: $0.body, as: UTF8.self) } == (0..<20).map { "r\($0)" })
        await server.stop()
    }

    /// The body arrives in a later segment than the head.
    @Test func bodyInALaterSegment() async throws {
        let server = try Self.makeServer()
        let head = Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nConnection: close\r\n\r\n".utf8)
        let reply = try await onThread { () -> RawReply in
            let fd = try connectTCP("127.0.0.1", server.port)
            defer { close(fd) }
            try sendAll(fd, head)
            usleep(100_000)
            try sendAll(fd, Array("ab".utf8))
            usleep(100_000)
            try sendAll(fd, Array("cd".utf8))
            return try readReply(fd, window: .seconds(2), limit: 4096)
        }
        #expect(reply.responses.map(\.body) == [Array("abcd".utf8)])
        await server.stop()
    }
}
