import Dispatch
import Foundation
import Testing

@testable import AccordNet

/// Deferred HTTP answers (`HTTPResponse.deferred`): the route answers later from another
/// thread while the service thread keeps serving every other connection.
@Suite(.timeLimit(.minutes(1)))
struct HTTPDeferredTests {
    /// Hands each deferred request's responder to the test, which answers when it likes.
    final class Pending: Sendable {
        private let responders = Locked<[HTTPResponder]>([])
        private let arrived = DispatchSemaphore(value: 0)

        func add(_ responder: HTTPResponder) {
            responders.withLock { $0.append(responder) }
            arrived.signal()
        }

        /// The next responder that arrives (waits up to 5 s).
        func next() throws -> HTTPResponder {
            guard arrived.wait(timeout: .now() + 5) == .success else { throw TimeoutError(what: "a deferred request") }
            return responders.withLock { $0.removeFirst() }
        }
    }

    static func makeServer(
        _ pending: Pending, _ tweak: (inout WebSocketServer.Configuration) -> Void = { _ in }
    ) throws -> WebSocketServer {
        var routes = HTTPRoutes()
        for method in [HTTPMethod.get, .head, .post] {
            routes.add(method, "/slow") { _ in .deferred { responder in pending.add(responder) } }
        }
        routes.add(.get, "/healthz") { _ in HTTPResponse(status: 200, text: "ok") }
        var configuration = WebSocketServer.Configuration(port: 0, routes: routes)
        tweak(&configuration)
        return try WebSocketServer(configuration)
    }

    static func answer(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, text: text)
    }

    /// While one request waits for its answer, another connection's /healthz is served;
    /// the answer, given from another thread, then reaches the waiting client.
    @Test func otherConnectionsAreServedWhileAnAnswerIsPending() async throws {
        let pending = Pending()
        let server = try Self.makeServer(pending)
        let port = server.port
        let (health, slow) = try await onThread { () -> (RawHTTPResponse, RawReply) in
            let fd = try connectTCP("127.0.0.1", port)
            defer { close(fd) }
            try sendAll(fd, rawRequest("GET", "/slow", headers: ["Connection: close"]))
            let responder = try pending.next()
            let health = try readHealth(port)
            DispatchQueue.global().async { responder.respond(Self.answer("late")) }
            return (health, try readReply(fd, window: .seconds(5), limit: 4096))
        }
        #expect(health.status == 200)
        #expect(slow.responses.map(\.status) == [200])
        #expect(slow.responses.first?.body == Array("late".utf8))
        #expect(slow.closed)
        await server.stop()
    }

    /// Requests pipelined behind a deferred one wait for it and are answered after it, in
    /// order, on the same (kept-alive) connection.
    @Test func pipelinedRequestsWaitTheirTurnAndKeepAliveHolds() async throws {
        let pending = Pending()
        let server = try Self.makeServer(pending)
        let port = server.port
        let reply = try await onThread { () -> RawReply in
            let fd = try connectTCP("127.0.0.1", port)
            defer { close(fd) }
            try sendAll(fd, rawRequest("POST", "/slow", body: "x") + rawRequest("GET", "/healthz"))
            let first = try pending.next()
            usleep(100_000)  // the pipelined /healthz must not overtake the pending answer
            first.respond(Self.answer("one"))
            var reply = try readReply(fd, window: .seconds(5), limit: 4096, untilResponses: 2)
            // Still open: a second deferred request on the same connection.
            try sendAll(fd, rawRequest("GET", "/slow", headers: ["Connection: close"]))
            try pending.next().respond(Self.answer("two"))
            let rest = try readReply(fd, window: .seconds(5), limit: 4096)
            reply.bytes += rest.bytes
            reply.closed = rest.closed
            return reply
        }
        #expect(reply.responses.map(\.status) == [200, 200, 200])
        #expect(reply.responses.map { String(decoding: $0.body, as: UTF8.self) } == ["one", "ok", "two"])
        #expect(reply.closed)
        await server.stop()
    }

    /// A second answer is ignored: exactly one response per request.
    @Test func answeringTwiceSendsOneResponse() async throws {
        let pending = Pending()
        let server = try Self.makeServer(pending)
        let port = server.port
        let reply = try await onThread { () -> RawReply in
            let fd = try connectTCP("127.0.0.1", port)
            defer { close(fd) }
            try sendAll(fd, rawRequest("GET", "/slow") + rawRequest("GET", "/healthz", headers: ["Connection: close"]))
            let responder = try pending.next()
            #expect(!responder.hasResponded)
            responder.respond(Self.answer("first"))
            responder.respond(Self.answer("second", status: 500))
            #expect(responder.hasResponded)
            return try readReply(fd, window: .seconds(5), limit: 4096)
        }
        #expect(reply.statusLineCount == 2, "\(reply.text)")
        #expect(reply.responses.map { String(decoding: $0.body, as: UTF8.self) } == ["first", "ok"])
        await server.stop()
    }

    /// HEAD answered later: the head with the body's length, no body.
    @Test func deferredHeadHasNoBody() async throws {
        let pending = Pending()
        let server = try Self.makeServer(pending)
        let port = server.port
        let reply = try await onThread { () -> RawReply in
            let fd = try connectTCP("127.0.0.1", port)
            defer { close(fd) }
            try sendAll(fd, rawRequest("HEAD", "/slow", headers: ["Connection: close"]))
            try pending.next().respond(Self.answer("twelve bytes"))
            return try readReply(fd, window: .seconds(5), limit: 4096)
        }
        #expect(reply.text.hasPrefix("HTTP/1.1 200 "))
        #expect(reply.text.contains("content-length: 12\r\n"))
        #expect(reply.text.hasSuffix("\r\n\r\n"), "a body was sent: \(reply.text)")
        await server.stop()
    }

    /// A client that leaves before its answer: the answer goes nowhere, nothing breaks,
    /// and the server keeps serving.
    @Test func answerAfterTheClientLeftIsDropped() async throws {
        let pending = Pending()
        let server = try Self.makeServer(pending)
        let port = server.port
        let health = try await onThread { () -> RawHTTPResponse in
            let fd = try connectTCP("127.0.0.1", port)
            try sendAll(fd, rawRequest("GET", "/slow"))
            let responder = try pending.next()
            close(fd)
            usleep(200_000)  // the server sees the close
            responder.respond(Self.answer("nobody"))
            usleep(100_000)
            return try readHealth(port)
        }
        #expect(health.status == 200)
        await server.stop()
    }

    /// The header timeout does not cut a long answer short (it bounds the client, not
    /// the route's work), and it applies again once the answer went out (keep-alive idle).
    @Test func timeoutsBoundTheClientNotTheAnswer() async throws {
        let pending = Pending()
        let server = try Self.makeServer(pending) { $0.headerTimeoutSeconds = 1 }
        let port = server.port
        let (reply, idleClosed) = try await onThread { () -> (RawReply, Bool) in
            let fd = try connectTCP("127.0.0.1", port)
            defer { close(fd) }
            try sendAll(fd, rawRequest("GET", "/slow"))
            let responder = try pending.next()
            usleep(2_000_000)  // twice the header timeout
            responder.respond(Self.answer("patient"))
            let reply = try readReply(fd, window: .seconds(3), limit: 4096, untilResponses: 1)
            // Kept alive, then closed by the idle (header) timeout.
            let after = try readReply(fd, window: .seconds(4), limit: 4096)
            return (reply, after.closed)
        }
        #expect(reply.responses.map { String(decoding: $0.body, as: UTF8.self) } == ["patient"])
        #expect(!reply.closed)
        #expect(idleClosed, "the idle connection stayed open after its deferred answer")
        await server.stop()
    }

    /// Stopping the server with an answer pending: stop completes, the late answer is a
    /// no-op.
    @Test func stopWithAnAnswerPending() async throws {
        let pending = Pending()
        let server = try Self.makeServer(pending)
        let port = server.port
        let (fd, responder) = try await onThread { () -> (Int32, HTTPResponder) in
            let fd = try connectTCP("127.0.0.1", port)
            try sendAll(fd, rawRequest("GET", "/slow"))
            return (fd, try pending.next())
        }
        await server.stop()
        responder.respond(Self.answer("too late"))
        let reply = try await onThread { try readReply(fd, window: .seconds(2), limit: 4096) }
        close(fd)
        #expect(reply.responses.isEmpty)
        #expect(reply.closed)
    }
}

/// GET /healthz on a connection of its own.
private func readHealth(_ port: Int) throws -> RawHTTPResponse {
    let fd = try connectTCP("127.0.0.1", port)
    defer { close(fd) }
    // A stalled server fails the read instead of hanging the test.
    var timeout = timeval(tv_sec: 3, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    try sendAll(fd, rawRequest("GET", "/healthz", headers: ["Connection: close"]))
    return try readHTTPResponse(fd)
}
