import Foundation

@testable import AccordNet

/// What a raw client got back within a bounded window: the bytes (at most `limit`, so
/// a server that loops cannot exhaust the test), and whether the server closed.
struct RawReply: Sendable {
    var bytes: [UInt8]
    var closed: Bool

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Every response in the bytes, in order: status line + headers + content-length body.
    var responses: [RawHTTPResponse] {
        var out: [RawHTTPResponse] = []
        var rest = bytes[...]
        let separator = Array("\r\n\r\n".utf8)
        while let end = rest.firstRange(of: separator) {
            let head = String(decoding: rest[..<end.lowerBound], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else { break }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            let bodyStart = end.upperBound
            let bodyEnd = min(bodyStart + length, rest.endIndex)
            out.append(RawHTTPResponse(status: status, headers: headers, body: Array(rest[bodyStart..<bodyEnd])))
            rest = rest[bodyEnd...]
        }
        return out
    }

    /// How many status lines the bytes hold (counts repeated heads a parser would skip).
    var statusLineCount: Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }
}

/// Sends `chunks` on one connection (each with its own `send`, so each tends to be
/// its own TCP segment; one chunk is one segment), then reads until the server closes,
/// `window` passes or `limit` bytes arrived.
func rawExchange(
    port: Int, _ chunks: [[UInt8]], window: Duration = .seconds(2), limit: Int = 64 * 1024,
    untilResponses: Int? = nil
) async throws -> RawReply {
    try await onThread {
        let fd = try connectTCP("127.0.0.1", port)
        defer { close(fd) }
        for chunk in chunks { try sendAll(fd, chunk) }
        return try readReply(fd, window: window, limit: limit, untilResponses: untilResponses)
    }
}

/// Reads from `fd` until EOF, `window` or `limit` bytes; with `untilResponses`, also
/// stops once that many complete responses arrived.
func readReply(_ fd: Int32, window: Duration, limit: Int, untilResponses: Int? = nil) throws -> RawReply {
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let deadline = ContinuousClock.now + window
    var reply = RawReply(bytes: [], closed: false)
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while ContinuousClock.now < deadline, reply.bytes.count < limit {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 || (n < 0 && errno == ECONNRESET) {
            reply.closed = true
            break
        }
        if n > 0 {
            reply.bytes += chunk[..<n]
            if let wanted = untilResponses, reply.responses.count >= wanted { break }
        }
    }
    return reply
}

/// `METHOD path HTTP/1.1` with a Host header, the given headers and body.
func rawRequest(_ method: String, _ path: String, headers: [String] = [], body: String? = nil) -> [UInt8] {
    var head = "\(method) \(path) HTTP/1.1\r\nHost: x\r\n"
    for header in headers { head += header + "\r\n" }
    if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
    return Array((head + "\r\n" + (body ?? "")).utf8)
}

/// The `error.code` of a coded JSON body `{"error":{"code":...,"message":...}}`.
func errorCode(_ body: [UInt8]) -> String? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
        let error = object["error"] as? [String: Any], error["message"] is String
    else { return nil }
    return error["code"] as? String
}
