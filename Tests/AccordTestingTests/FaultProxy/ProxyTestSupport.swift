@testable import AccordNet  // its `Locked`, for event logs filled from service threads
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct TimeoutError: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}


/// Polls `condition` until it returns a value or `timeout` passes (then throws, so a
/// missing event fails the test instead of hanging it).
func eventually<T>(
    _ what: String, timeout: Duration = .seconds(10), _ condition: () -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = condition() { return value }
        guard ContinuousClock.now < deadline else { throw TimeoutError(what: what) }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// Events appended from any thread.
final class EventLog<Event: Sendable>: Sendable {
    private let events = Locked<[Event]>([])

    func append(_ event: Event) { events.withLock { $0.append(event) } }
    var all: [Event] { events.withLock { $0 } }

    func wait<T>(_ what: String, timeout: Duration = .seconds(10), _ condition: ([Event]) -> T?) async throws -> T {
        try await eventually(what, timeout: timeout) { condition(all) }
    }
}

/// A WebSocket server that echoes every message, logging its events.
struct EchoServer {
    let server: WebSocketServer
    let log = EventLog<WebSocketServerEvent>()

    /// Also answers `GET /health` with `ok`, over plain HTTP.
    init(pingAfterSeconds: Int? = nil, hangUpAfterSeconds: Int? = nil) throws {
        let log = self.log
        var routes = HTTPRoutes()
        routes.add(.get, "/health") { _ in HTTPResponse(status: 200, text: "ok") }
        server = try WebSocketServer(
            .init(
                port: 0, routes: routes, pingAfterSeconds: pingAfterSeconds, hangUpAfterSeconds: hangUpAfterSeconds,
                onEvent: { event in
                    log.append(event)
                    if case .message(let connection, let bytes) = event { connection.send(bytes) }
                }))
    }

    var port: Int { server.port }
    var messages: [[UInt8]] { log.all.compactMap { if case .message(_, let bytes) = $0 { bytes } else { nil } } }
    var closeCodes: [UInt16] { log.all.compactMap { if case .closed(_, let code, _) = $0 { code } else { nil } } }
    var openedCount: Int { log.all.count { if case .opened = $0 { true } else { false } } }
}

/// A client whose events are collected into a log.
struct RecordedClient {
    let client: WebSocketClient
    let log = EventLog<WebSocketClient.Event>()

    init(_ client: WebSocketClient) {
        self.client = client
        let log = self.log
        let events = client.events
        Task { for await event in events { log.append(event) } }
    }

    static func connect(port: Int, path: String = "/echo") async throws -> RecordedClient {
        RecordedClient(try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)\(path)"))
    }

    var messages: [[UInt8]] { log.all.compactMap { if case .message(let bytes) = $0 { bytes } else { nil } } }
    var pongs: [[UInt8]] { log.all.compactMap { if case .pong(let bytes) = $0 { bytes } else { nil } } }
    var closeCode: UInt16? {
        log.all.lazy.compactMap { if case .closed(let code, _) = $0 { code } else { nil } }.first
    }

    /// Waits until `count` messages arrived and returns them.
    func messages(count: Int, timeout: Duration = .seconds(10)) async throws -> [[UInt8]] {
        try await log.wait("\(count) messages", timeout: timeout) { _ in
            let messages = self.messages
            return messages.count >= count ? messages : nil
        }
    }

    func closed(timeout: Duration = .seconds(10)) async throws -> UInt16 {
        try await log.wait("client closed", timeout: timeout) { _ in closeCode }
    }
}

/// Deterministic test bytes.
func pattern(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ ($0 >> 8)) }
}

/// A message carrying `index` in its first two bytes.
func numbered(_ index: Int, size: Int = 16) -> [UInt8] {
    [UInt8(index >> 8), UInt8(index & 0xFF)] + pattern(max(size - 2, 0), seed: UInt8(truncatingIfNeeded: index))
}

func number(of message: [UInt8]) -> Int { Int(message[0]) << 8 | Int(message[1]) }

/// Runs blocking socket code on its own thread, so no Swift concurrency thread blocks.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

struct SocketError: Error, CustomStringConvertible {
    var description: String
}

/// Sends `request` on a plain socket to `127.0.0.1:port` and reads until end of stream.
func exchange(port: Int, _ request: String) throws -> String {
    let socket = try RawWebSocket(port: port, upgrade: false)
    try socket.write(Array(request.utf8))
    return String(decoding: try socket.readToEnd(), as: UTF8.self)
}

/// A WebSocket client on a plain socket, for what `WebSocketClient` never sends:
/// fragmented messages and control frames between fragments. Blocking, 5 s timeouts;
/// use it from one thread.
final class RawWebSocket {
    struct Frame: Equatable {
        var fin: Bool
        var opcode: UInt8
        var payload: [UInt8]
    }

    private let fd: Int32
    private var buffered: [UInt8] = []
    private var generator = SystemRandomNumberGenerator()

    /// Connects to `127.0.0.1:port` and completes the upgrade (status 101 expected),
    /// unless `upgrade` is false.
    init(port: Int, upgrade: Bool = true) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError(description: "socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw SocketError(description: "connect: errno \(errno)")
        }
        guard upgrade else { return }
        let request = "GET /raw HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try write(Array(request.utf8))
        var head: [UInt8] = []
        while !(head.count >= 4 && Array(head.suffix(4)) == Array("\r\n\r\n".utf8)) {
            head.append(contentsOf: try read(1))
        }
        let status = String(decoding: head, as: UTF8.self).split(separator: " ").dropFirst().first
        guard status == "101" else { throw SocketError(description: "upgrade refused: \(String(decoding: head, as: UTF8.self))") }
    }

    deinit { close(fd) }

    /// Sends one masked frame.
    func send(_ opcode: UInt8, fin: Bool = true, _ payload: [UInt8]) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: frame += [0x80 | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write(frame)
    }

    /// Sends `message` as a binary message cut into `pieces` frames, with a ping
    /// (payload `ping`) after the first frame when given.
    func sendFragmented(_ message: [UInt8], pieces: Int, pingAfterFirst ping: [UInt8]? = nil) throws {
        let size = (message.count + pieces - 1) / pieces
        for piece in 0..<pieces {
            let slice = Array(message[min(piece * size, message.count)..<min((piece + 1) * size, message.count)])
            try send(piece == 0 ? 0x2 : 0x0, fin: piece == pieces - 1, slice)
            if piece == 0, let ping { try send(0x9, ping) }
        }
    }

    /// Reads the next frame (the server's frames are unmasked).
    func receive() throws -> Frame {
        let header = try read(2)
        var length = Int(header[1] & 0x7F)
        if length == 126 {
            length = try read(2).reduce(0) { $0 << 8 | Int($1) }
        } else if length == 127 {
            length = try read(8).reduce(0) { $0 << 8 | Int($1) }
        }
        return Frame(fin: header[0] & 0x80 != 0, opcode: header[0] & 0x0F, payload: try read(length))
    }

    /// Reads the next whole data message, answering nothing; control frames are returned
    /// in `controls` in the order they came.
    func receiveMessage(controls: inout [Frame]) throws -> [UInt8] {
        var message: [UInt8] = []
        while true {
            let frame = try receive()
            if frame.opcode & 0x8 != 0 {
                controls.append(frame)
                continue
            }
            message += frame.payload
            if frame.fin { return message }
        }
    }

    /// Everything until the peer closes.
    func readToEnd() throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard received >= 0 else { throw SocketError(description: "recv: errno \(errno)") }
            if received == 0 { break }
            buffered += chunk[..<received]
        }
        defer { buffered = [] }
        return buffered
    }

    func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { sendWithoutSignal(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw SocketError(description: "send: errno \(errno)") }
            sent += count
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while buffered.count < count {
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard received > 0 else { throw SocketError(description: "recv: \(received == 0 ? "end of stream" : "errno \(errno)")") }
            buffered += chunk[..<received]
        }
        let bytes = Array(buffered[..<count])
        buffered.removeFirst(count)
        return bytes
    }
}

/// `send` without SIGPIPE where the platform allows it.
private func sendWithoutSignal(_ fd: Int32, _ base: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    send(fd, base, count, Int32(MSG_NOSIGNAL))
    #else
    send(fd, base, count, 0)
    #endif
}
