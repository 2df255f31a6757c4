import Foundation
import Testing

@testable import AccordNet

struct TimeoutError: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Events appended from any thread; tests wait for a condition with a deadline (polling,
/// so a missing event fails the test instead of hanging it).
final class EventLog<Event: Sendable>: Sendable {
    private let events = Locked<[Event]>([])

    func append(_ event: Event) { events.withLock { $0.append(event) } }
    var all: [Event] { events.withLock { $0 } }

    /// Waits until `condition(all events)` returns a value.
    func wait<T>(
        _ what: String, timeout: Duration = .seconds(10), _ condition: ([Event]) -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = condition(all) { return value }
            guard ContinuousClock.now < deadline else { throw TimeoutError(what: what) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// A client whose events are collected into a log by a consuming task.
struct RecordedClient {
    let client: WebSocketClient
    let log = EventLog<WebSocketClient.Event>()

    init(_ client: WebSocketClient) {
        self.client = client
        let log = self.log
        let events = client.events
        Task { for await event in events { log.append(event) } }
    }

    static func connect(
        _ url: String, headers: [(name: String, value: String)] = []
    ) async throws -> RecordedClient {
        RecordedClient(try await WebSocketClient.connect(to: url, headers: headers))
    }

    var messages: [[UInt8]] {
        log.all.compactMap { if case .message(let bytes) = $0 { bytes } else { nil } }
    }

    func closed() async throws -> (code: UInt16, reason: String) {
        try await log.wait("client closed") { events in
            for case .closed(let code, let reason) in events { return (code, reason) }
            return nil
        }
    }
}

extension WebSocketServerEvent {
    var closeCode: UInt16? { if case .closed(_, let code, _) = self { code } else { nil } }
    var message: [UInt8]? { if case .message(_, let bytes) = self { bytes } else { nil } }
    var opened: WebSocketConnection? { if case .opened(let connection) = self { connection } else { nil } }
}

/// Runs blocking socket code on its own thread, so no Swift concurrency thread blocks.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

struct SocketError: Error, CustomStringConvertible {
    var description: String
}

/// A connected TCP socket to `address:port`, with 5 s send/receive timeouts.
func connectTCP(_ address: String, _ port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SocketError(description: "socket: \(errno)") }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    inet_pton(AF_INET, address, &addr.sin_addr)
    let result = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard result == 0 else {
        let code = errno
        close(fd)
        throw SocketError(description: "connect \(address):\(port): errno \(code)")
    }
    return fd
}

/// A TCP socket bound to 127.0.0.1 on a port the kernel picks. Listening, it accepts
/// connections in the kernel (from the backlog) and then never answers; not listening,
/// connections to its port are refused.
func boundSocket(listening: Bool) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SocketError(description: "socket: errno \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && (!listening || listen(fd, 16) == 0) && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else {
        close(fd)
        throw SocketError(description: "bind/listen: errno \(errno)")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

struct RawHTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
}

/// One HTTP/1.1 request with `Connection: close` over a plain socket, read to EOF.
func httpRequest(
    port: Int, method: String = "GET", path: String, headers: [String: String] = [:], body: [UInt8] = []
) async throws -> RawHTTPResponse {
    try await onThread {
        let fd = try connectTCP("127.0.0.1", port)
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw SocketError(description: "send: errno \(errno)") }
            sent += n
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            guard n > 0 else { throw SocketError(description: "recv: errno \(errno)") }
            response += chunk[..<n]
        }
        return try parseHTTP(response)
    }
}

/// Reads one response (headers, then `content-length` bytes) from a keep-alive socket.
func readHTTPResponse(_ fd: Int32) throws -> RawHTTPResponse {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while !(bytes.count >= 4 && Array(bytes.suffix(4)) == Array("\r\n\r\n".utf8)) {
        guard recv(fd, &byte, 1, 0) == 1 else { throw SocketError(description: "recv header: errno \(errno)") }
        bytes.append(byte)
    }
    var response = try parseHTTP(bytes)
    let length = Int(response.headers["content-length"] ?? "0") ?? 0
    var body = [UInt8](repeating: 0, count: length)
    var received = 0
    while received < length {
        let n = body[received...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw SocketError(description: "recv body: errno \(errno)") }
        received += n
    }
    response.body = body
    return response
}

/// Sends all of `bytes`.
func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw SocketError(description: "send: errno \(errno)") }
        sent += n
    }
}

private func parseHTTP(_ bytes: [UInt8]) throws -> RawHTTPResponse {
    let separator: [UInt8] = Array("\r\n\r\n".utf8)
    guard let split = (0...(max(bytes.count - 4, 0))).first(where: { Array(bytes[$0..<min($0 + 4, bytes.count)]) == separator })
    else { throw SocketError(description: "no header end in \(bytes.count) bytes") }
    let lines = String(decoding: bytes[..<split], as: UTF8.self).components(separatedBy: "\r\n")
    let statusParts = lines[0].split(separator: " ")
    guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
        throw SocketError(description: "bad status line \(lines[0])")
    }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return RawHTTPResponse(status: status, headers: headers, body: Array(bytes[(split + 4)...]))
}

/// Deterministic test bytes.
func pattern(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ ($0 >> 8)) }
}
