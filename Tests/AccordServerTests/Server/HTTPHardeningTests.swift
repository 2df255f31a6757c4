import Foundation
import Testing

@testable import AccordServer

/// The real server against the probe's raw requests (issue 14): the REST route sees
/// the path as sent, undecodable paths and over-long heads are refused with coded
/// bodies, and refusals are counted in /metrics.
@Suite(.timeLimit(.minutes(1)))
struct HTTPHardeningTests {
    /// One request over a raw socket (URLSession would normalise the path first).
    private static func raw(_ port: Int, _ request: String) async throws -> (status: Int, body: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try Self.exchange(port, Array(request.utf8)) })
            }.start()
        }
    }

    private static func exchange(_ port: Int, _ bytes: [UInt8]) throws -> (status: Int, body: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw CocoaError(.fileReadUnknown) }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while response.count < 1 << 20 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            response += chunk[..<n]
        }
        let text = String(decoding: response, as: UTF8.self)
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        return (status, body)
    }

    private static func get(_ server: TestServer, _ path: String, user: String = "alice", extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.token(user))\r\n\(extra)Connection: close\r\n\r\n"
    }

    /// `/v1/documents/x/../y` used to reach the route as `/v1/documents/y`.
    @Test func dotSegmentsNeverReachAnotherDocument() async throws {
        let server = try TestServer()
        let created = try await server.request("POST", "/v1/documents", user: "alice", json: ["id": "y"])
        #expect(created.status == 201)
        let direct = try await Self.raw(server.port, Self.get(server, "/v1/documents/y"))
        #expect(direct.status == 200)
        for path in ["/v1/documents/x/../y", "/v1/documents/./y", "/v1/documents//y"] {
            let response = try await Self.raw(server.port, Self.get(server, path))
            #expect(response.status != 200, "\(path) reached document y")
            #expect(!response.body.contains(#""id":"y""#), "\(path): \(response.body)")
        }
        try await server.stop()
    }

    @Test func undecodablePathIsRefusedAndCounted() async throws {
        let server = try TestServer()
        let response = try await Self.raw(server.port, Self.get(server, "/v1/documents/abc%0adef"))
        #expect(response.status == 400)
        #expect(response.body.contains(#""code":"MALFORMED_REQUEST""#))
        let tooLong = try await Self.raw(
            server.port, Self.get(server, "/healthz", extra: "X-Pad: \(String(repeating: "p", count: 20_000))\r\n"))
        #expect(tooLong.status == 431)
        #expect(server.server.metrics.snapshot.errors["MALFORMED_REQUEST"] == 1)
        #expect(server.server.metrics.snapshot.errors["HEADERS_TOO_LARGE"] == 1)
        let metrics = try await Self.raw(server.port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(metrics.body.contains(#"accord_errors_total{code="HEADERS_TOO_LARGE"} 1"#))
        try await server.stop()
    }

    /// A 10 KB bearer token is under the 16 KB default head limit.
    @Test func longTokenIsAccepted() async throws {
        let server = try TestServer()
        _ = try await server.request("POST", "/v1/documents", user: "alice", json: ["id": "y"])
        let padded = Self.get(server, "/v1/documents/y", extra: "X-Pad: \(String(repeating: "p", count: 10_000))\r\n")
        let response = try await Self.raw(server.port, padded)
        #expect(response.status == 200)
        try await server.stop()
    }
}
