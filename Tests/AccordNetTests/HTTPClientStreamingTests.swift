import Foundation
import Testing

@testable import AccordNet

/// `HTTPClient` streaming: a request body read from a piece of a file, a response body
/// handed to a sink piece by piece (bounded by the client's limit only when buffered),
/// headers lws has no token for, and a HEAD answer that ends at its head.
@Suite(.timeLimit(.minutes(1)))
struct HTTPClientStreamingTests {
    private func makeServer() throws -> WebSocketServer {
        var routes = HTTPRoutes()
        routes.add(.put, "/echo") { request in
            HTTPResponse(status: 201, contentType: "application/octet-stream", body: request.body)
        }
        routes.add(.get, "/big") { _ in
            HTTPResponse(status: 200, body: (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        }
        routes.add(.get, "/denied") { _ in
            HTTPResponse(status: 403, contentType: "application/json", body: Array(#"{"error":{"code":"NO"}}"#.utf8))
        }
        for method in [HTTPMethod.get, .head] {
            routes.add(method, "/custom") { _ in
                HTTPResponse(status: 404, text: "gone", headers: [("accord-upload-offset", "4242")])
            }
        }
        return try WebSocketServer(.init(port: 0, routes: routes))
    }

    final class CollectingSink: HTTPResponseSink, @unchecked Sendable {
        // Invariant: touched by the service thread during the request, by the test after.
        var accepted: [Int] = []
        var pieces = 0
        var bytes: [UInt8] = []
        var largestPiece = 0
        let acceptStatus: Int
        init(acceptStatus: Int = 200) { self.acceptStatus = acceptStatus }
        func accepts(status: Int, headers: [String: String]) -> Bool {
            accepted.append(status)
            return status == acceptStatus
        }
        func write(_ piece: UnsafeRawBufferPointer) throws(NetError) {
            pieces += 1
            largestPiece = max(largestPiece, piece.count)
            bytes.append(contentsOf: piece)
        }
    }

    @Test func aFileBodyGoesOutFromItsOffset() async throws {
        let server = try makeServer()
        let client = try HTTPClient()
        let path = NSTemporaryDirectory() + "accord-http-file-\(UUID().uuidString)"
        defer { unlink(path) }
        let content = (0..<1_000_003).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        FileManager.default.createFile(atPath: path, contents: Data(content))
        let progress = ProgressLog()
        var request = HTTPClientRequest(.put, "http://127.0.0.1:\(server.port)/echo")
        request.bodyFile = HTTPFileBody(path: path, offset: 123_457, length: 600_000) { progress.add($0) }
        let response = try await client.send(request)
        #expect(response.status == 201)
        #expect(response.body == Array(content[123_457..<723_457]))
        #expect(progress.values.last == 600_000)
        await client.stop()
        await server.stop()
    }

    @Test func aFileShorterThanPromisedFailsTheRequest() async throws {
        let server = try makeServer()
        let client = try HTTPClient()
        let path = NSTemporaryDirectory() + "accord-http-short-\(UUID().uuidString)"
        defer { unlink(path) }
        FileManager.default.createFile(atPath: path, contents: Data(repeating: 1, count: 1000))
        var request = HTTPClientRequest(.put, "http://127.0.0.1:\(server.port)/echo")
        request.bodyFile = HTTPFileBody(path: path, offset: 0, length: 5000)
        let error = await #expect(throws: NetError.self) { try await client.send(request) }
        #expect(error?.code == .requestFailed)
        request.bodyFile = HTTPFileBody(path: path + "-missing", offset: 0, length: 10)
        let missing = await #expect(throws: NetError.self) { try await client.send(request) }
        #expect(missing?.code == .requestFailed)
        await client.stop()
        await server.stop()
    }

    @Test func aSinkTakesABodyLargerThanTheBufferLimitInPieces() async throws {
        let server = try makeServer()
        let client = try HTTPClient(maxResponseSize: 100_000)
        let sink = CollectingSink()
        let response = try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(server.port)/big"), sink: sink)
        #expect(response.status == 200 && response.body.isEmpty)
        #expect(sink.bytes == (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        // One piece per read of the socket: at most the 256 KiB lws reads at once (pt_serv_buf_size).
        #expect(sink.pieces > 1 && sink.largestPiece <= 256 * 1024)
        // A status the sink declines is buffered as before.
        let declining = CollectingSink()
        let denied = try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(server.port)/denied"), sink: declining)
        #expect(denied.status == 403 && String(decoding: denied.body, as: UTF8.self).contains("NO"))
        #expect(declining.accepted == [403] && declining.bytes.isEmpty)
        await client.stop()
        await server.stop()
    }

    @Test func aSinkThatThrowsEndsTheRequest() async throws {
        final class Refusing: HTTPResponseSink, @unchecked Sendable {
            func accepts(status: Int, headers: [String: String]) -> Bool { true }
            func write(_ bytes: UnsafeRawBufferPointer) throws(NetError) { throw NetError(.requestFailed, "disk full") }
        }
        let server = try makeServer()
        let client = try HTTPClient()
        let error = await #expect(throws: NetError.self) {
            try await client.send(HTTPClientRequest(.get, "http://127.0.0.1:\(server.port)/big"), sink: Refusing())
        }
        #expect(error?.message == "disk full")
        await client.stop()
        await server.stop()
    }

    @Test func customHeadersAreReadAndHeadEndsAtItsHead() async throws {
        let server = try makeServer()
        let client = try HTTPClient()
        var request = HTTPClientRequest(.get, "http://127.0.0.1:\(server.port)/custom")
        request.customResponseHeaders = ["accord-upload-offset"]
        let response = try await client.send(request)
        #expect(response.status == 404 && response.header("accord-upload-offset") == "4242")
        var head = HTTPClientRequest(.head, "http://127.0.0.1:\(server.port)/custom")
        head.customResponseHeaders = ["accord-upload-offset"]
        let headResponse = try await client.send(head, timeout: .seconds(5))
        #expect(headResponse.status == 404 && headResponse.body.isEmpty)
        #expect(headResponse.header("accord-upload-offset") == "4242")
        await client.stop()
        await server.stop()
    }
}

final class ProgressLog: @unchecked Sendable {
    // Invariant: `values` is touched under `lock`.
    private let lock = NSLock()
    private var stored: [Int64] = []
    func add(_ value: Int64) { lock.withLock { stored.append(value) } }
    var values: [Int64] { lock.withLock { stored } }
}
