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

    public struct Failure: Error, CustomStringConvertible {
        public var call: String
        public var errno: Int32
        public var description: String { "\(call) failed: errno \(errno)" }
    }

    /// Connects to `127.0.0.1:port`, upgrades on `path` (with its query) and reads the
    /// `101` response head, nothing after it.
    public init(port: Int, path: String, receiveBuffer: Int32 = 4096) throws {
        do {
            fd = try ProxySocket.connectTo(host: "127.0.0.1", port: port, receiveBuffer: receiveBuffer)
        } catch {
            throw Failure(call: error.call, errno: error.errno)
        }
        // Bounded waits: a send into a stalled server, or a read of a connection it
        // keeps open, gives up instead of hanging the test.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try write(WebSocketBytes.upgradeRequest(path: path))
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
        try write(WebSocketBytes.frame(message))
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
        guard ProxySocket.sendAll(fd, bytes) else { throw Failure(call: "send", errno: errno) }
    }
}
