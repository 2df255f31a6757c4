import Foundation
import Testing

@testable import AccordNet

/// `HTTPClient` against AccordNet's own server (real sockets, real lws on both sides),
/// plus sockets that refuse or never answer for the failure paths.
@Suite(.timeLimit(.minutes(1)))
struct HTTPClientTests {
    private func makeServer() throws -> WebSocketServer {
        var routes = HTTPRoutes()
        routes.add(.get, "/hello") { request in
            HTTPResponse(status: 200, text: "hello \(request.queryValue("name") ?? "?")", headers: [("X-Accord", "yes")])
        }
        for method in [HTTPMethod.post, .put, .patch, .delete] {
            routes.add(method, "/echo") { request in
                HTTPResponse(
                    status: 201, contentType: "application/octet-stream",
                    headers: [("X-Method", request.method.rawValue)], body: request.body)
            }
        }
        routes.add(.get, "/headers") { request in
            HTTPResponse(status: 200, text: "\(request.header("authorization") ?? "-") \(request.header("x-custom") ?? "-")")
        }
        routes.add(.get, "/denied") { _ in
            HTTPResponse(
                status: 403, contentType: "application/json",
                body: Array(#"{"error":{"code":"DOC_ACCESS_DENIED","message":"no","details":{}}}"#.utf8))
        }
        routes.add(.get, "/big") { _ in HTTPResponse(status: 200, body: [UInt8](repeating: 7, count: 200_000)) }
        return try WebSocketServer(.init(port: 0, routes: routes))
    }

    @Test func getReturnsStatusHeadersAndBody() async throws {
        let server = try makeServer()
        let client = try HTTPClient()
        let response = try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(server.port)/hello?name=ada"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello ada")
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(response.header("content-length") == "9")
        await client.stop()
        await server.stop()
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch, .delete])
    func bodiesGoOutWholeAndComeBackWhole(method: HTTPMethod) async throws {
        let server = try makeServer()
        let client = try HTTPClient()
        // Larger than one write chunk and than lws' receive buffer, with every byte value.
        let body = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let response = try await client.send(HTTPClientRequest(method, "http://127.0.0.1:\(server.port)/echo", body: body))
        #expect(response.status == 201)
        #expect(response.body.count == body.count)
        #expect(response.body == body, "the echoed body differs")
        await client.stop()
        await server.stop()
    }

    @Test func emptyBodiesAndRequestHeadersArrive() async throws {
        let server = try makeServer()
        let client = try HTTPClient()
        let echoed = try await client.send(HTTPClientRequest(.post, "http://127.0.0.1:\(server.port)/echo"))
        #expect(echoed.status == 201 && echoed.body.isEmpty)
        let headers = try await client.send(
            HTTPClientRequest(
                .get, "http://127.0.0.1:\(server.port)/headers",
                headers: [("Authorization", "Bearer t0k"), ("X-Custom", "v 1")]))
        #expect(String(decoding: headers.body, as: UTF8.self) == "Bearer t0k v 1")
        await client.stop()
        await server.stop()
    }

    /// lws 4.1 ignored our close after a response without a body, so each such request
    /// left its connection open: the server's per-address cap (4 here) refused the fifth.
    @Test(arguments: [200, 204])
    func connectionsCloseAfterResponsesWithoutABody(status: Int) async throws {
        var routes = HTTPRoutes()
        routes.add(.delete, "/thing") { _ in HTTPResponse(status: status, body: []) }
        let server = try WebSocketServer(.init(port: 0, routes: routes, maxConnectionsPerAddress: 4))
        let client = try HTTPClient()
        for _ in 0..<40 {
            let response = try await client.send(HTTPClientRequest(.delete, "http://127.0.0.1:\(server.port)/thing"))
            #expect(response.status == status)
            if response.status != status { break }
        }
        await client.stop()
        await server.stop()
    }

    @Test func errorStatusesAreResponsesWithTheirBodies() async throws {
        let server = try makeServer()
        let client = try HTTPClient()
        let denied = try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(server.port)/denied"))
        #expect(denied.status == 403)
        #expect(String(decoding: denied.body, as: UTF8.self).contains("DOC_ACCESS_DENIED"))
        let missing = try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(server.port)/nowhere"))
        #expect(missing.status == 404)
        await client.stop()
        await server.stop()
    }

    @Test func manyRequestsAtOnceEachGetTheirOwnAnswer() async throws {
        let server = try makeServer()
        let client = try HTTPClient()
        let port = server.port
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<20 {
                group.addTask {
                    let response = try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(port)/hello?name=\(index)"))
                    return (index, String(decoding: response.body, as: UTF8.self))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 20)
        #expect(answers.allSatisfy { $0.value == "hello \($0.key)" })
        await client.stop()
        await server.stop()
    }

    @Test func nothingListeningIsAConnectFailure() async throws {
        let (fd, port) = try boundSocket(listening: false)
        defer { close(fd) }
        let client = try HTTPClient()
        let error = await #expect(throws: NetError.self) {
            try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(port)/x"), timeout: .seconds(10))
        }
        #expect(error?.code == .connectFailed)
        await client.stop()
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let (fd, port) = try boundSocket(listening: true)
        defer { close(fd) }
        let client = try HTTPClient()
        let started = ContinuousClock.now
        let error = await #expect(throws: NetError.self) {
            try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(port)/x"), timeout: .milliseconds(300))
        }
        #expect(error?.code == .timedOut)
        #expect(ContinuousClock.now - started < .seconds(5))
        await client.stop()
    }

    @Test func cancellingTheTaskEndsTheRequest() async throws {
        let (fd, port) = try boundSocket(listening: true)
        defer { close(fd) }
        let client = try HTTPClient()
        let request = Task {
            try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(port)/x"), timeout: .seconds(30))
        }
        try await Task.sleep(for: .milliseconds(100))
        request.cancel()
        let result = await request.result
        #expect(throws: NetError.self) { try result.get() }
        #expect((try? result.get()) == nil)
        if case .failure(let error as NetError) = result { #expect(error.code == .cancelled) }
        // The client keeps working after a cancelled request.
        let server = try makeServer()
        let response = try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(server.port)/hello?name=b"))
        #expect(response.status == 200)
        await client.stop()
        await server.stop()
    }

    @Test func aResponseOverTheLimitIsRefused() async throws {
        let server = try makeServer()
        let client = try HTTPClient(maxResponseSize: 100_000)
        let error = await #expect(throws: NetError.self) {
            try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(server.port)/big"))
        }
        #expect(error?.code == .responseTooLarge)
        await client.stop()
        await server.stop()
    }

    @Test func stoppingCancelsRequestsInFlightAndLaterOnes() async throws {
        let (fd, port) = try boundSocket(listening: true)
        defer { close(fd) }
        let client = try HTTPClient()
        let request = Task { try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(port)/x")) }
        try await Task.sleep(for: .milliseconds(100))
        await client.stop()
        if case .failure(let error as NetError) = await request.result {
            #expect(error.code == .cancelled)
        } else {
            Issue.record("the request in flight should fail with NET_CANCELLED")
        }
        let later = await #expect(throws: NetError.self) {
            try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(port)/x"))
        }
        #expect(later?.code == .cancelled)
    }

    @Test func onlyHTTPURLsAreAccepted() async throws {
        let client = try HTTPClient()
        let error = await #expect(throws: NetError.self) {
            try await client.send(HTTPClientRequest(.get, "ftp://127.0.0.1/x"))
        }
        #expect(error?.code == .invalidURL)
        await client.stop()
    }
}
