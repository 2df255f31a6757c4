#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A WebSocket client that upgrades, then never reads again: the slow consumer of
/// issue 14. A plain blocking TCP socket with a small receive buffer (set before
/// connecting, so the advertised window stays small), the upgrade written by hand, and
/// masked binary frames sent on request. Whatever the server sends piles up on the
/// server's side once the few kilobytes of buffer here are full.
public final class StalledReader: @unchecked Sendable {
    // Invariant: `fd` is written once in init; the calls below are plain syscalls on it,
    // and tests call them from one task at a time.
    private let fd: Int32
    private var maskSeed: UInt32 = 0x9E37_79B9

    public struct Failure: Error, CustomStringConvertible {
        public var call: String
        public var errno: Int32
        public var description: String { "\(call) failed: errno \(errno)" }
    }

    /// Connects to `127.0.0.1:port`, upgrades on `path` (with its query) and reads the
    /// `101` response head, nothing after it.
    public init(port: Int, path: String, receiveBuffer: Int32 = 4096) throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(call: "socket", errno: errno) }
        self.fd = fd
        var size = receiveBuffer
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(call: "connect", errno: errno) }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try write(Array(request.utf8))
        // Byte by byte, so not one byte of what follows the head is consumed.
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !(head.count >= 4 && head.suffix(4).elementsEqual("\r\n\r\n".utf8)) {
            guard recv(fd, &byte, 1, 0) == 1 else { throw Failure(call: "recv (upgrade)", errno: errno) }
            head.append(byte)
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw Failure(call: "upgrade: \(String(decoding: head.prefix(40), as: UTF8.self))", errno: 0)
        }
    }

    deinit { close(fd) }

    /// Sends one binary message as a single masked frame.
    public func send(_ message: [UInt8]) throws {
        var frame: [UInt8] = [0x82]
        switch message.count {
        case ..<126: frame.append(0x80 | UInt8(message.count))
        case ..<65536: frame += [0x80 | 126, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        default: frame += [0x80 | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: message.count >> ($0 * 8)) }
        }
        // Clients must mask; any key will do (xorshift keeps it deterministic).
        maskSeed ^= maskSeed << 13
        maskSeed ^= maskSeed >> 17
        maskSeed ^= maskSeed << 5
        let mask = (0..<4).map { UInt8(truncatingIfNeeded: maskSeed >> ($0 * 8)) }
        frame += mask
        frame += message.enumerated().map { $0.element ^ mask[$0.offset & 3] }
        try write(frame)
    }

    /// Starts reading at last and discards everything until the server's end of the
    /// connection (end of stream or reset): true when it ended within the receive
    /// timeout, false if the server still holds it open.
    public func readUntilClosed() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            if count < 0, errno == EINTR { continue }
            return count == 0 || errno == ECONNRESET
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            // Module-qualified: `send` alone would name the method above.
            #if canImport(Glibc)
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #else
            let count = bytes[sent...].withUnsafeBytes { Darwin.send(fd, $0.baseAddress, $0.count, 0) }
            #endif
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw Failure(call: "send", errno: errno) }
            sent += count
        }
    }
}
