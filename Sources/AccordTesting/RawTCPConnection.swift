#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to a port on 127.0.0.1, for tests that must send exactly the
/// bytes a hostile or broken client sends (pipelined requests, half a header block, a
/// WebSocket frame without a mask) and read exactly what comes back. Blocking calls
/// with timeouts; one owner at a time.
public final class RawTCPConnection: @unchecked Sendable {
    public let fd: Int32
    private var isClosed = false

    /// Connects to `127.0.0.1:port`. `receiveBuffer` sets `SO_RCVBUF` before
    /// connecting (a small one makes a reader that never reads stall the sender sooner).
    public init(port: Int, receiveBuffer: Int? = nil) throws {
        do {
            fd = try ProxySocket.connectTo(host: "127.0.0.1", port: port, receiveBuffer: receiveBuffer.map(Int32.init))
        } catch {
            throw RawTCPError("connect to 127.0.0.1:\(port): \(error)")
        }
    }

    deinit { close() }

    /// Writes every byte; false when the connection is gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool { ProxySocket.sendAll(fd, bytes) }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// What arrives within `milliseconds`, stopping early at end of stream or once
    /// `until` holds for the bytes so far. `closed` tells whether the peer ended the
    /// stream (FIN or reset).
    public func receive(
        for milliseconds: Int, until: ([UInt8]) -> Bool = { _ in false }
    ) -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let deadline = RawClock.milliseconds() + milliseconds
        while true {
            let left = deadline - RawClock.milliseconds()
            guard left > 0 else { return (bytes, false) }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(left))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return (bytes, false) }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return (bytes, true) }
            bytes += buffer[..<count]
            if until(bytes) { return (bytes, false) }
        }
    }

    /// Sends a FIN; the connection can still be read.
    public func shutdownWrite() { ProxySocket.shutdownWrite(fd) }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        ProxySocket.closeSocket(fd)
    }
}

public struct RawTCPError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

enum RawClock {
    static func milliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int(now.tv_sec) * 1000 + Int(now.tv_nsec) / 1_000_000
    }
}
