#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A WebSocket client written straight onto a TCP socket (blocking, one thread), for
/// tests that need to control exactly what is written when and to see how the server
/// ends the TCP connection, which the lws client hides: an orderly end of stream
/// (the server's FIN after the closing handshake) or a reset.
final class RawWebSocket {
    enum End: Equatable {
        /// The server closed the TCP connection in order (read returned 0).
        case endOfStream
        /// The connection was reset: a client reports such an end as 1006.
        case reset
        case timedOut
    }

    /// What a connection saw from the upgrade to its end.
    struct Transcript {
        var messages: [[UInt8]] = []
        var close: (code: UInt16, reason: String)?
        var end: End = .timedOut
    }

    private let fd: Int32

    /// Connects to 127.0.0.1:`port`; reads time out after `timeoutSeconds`. A small
    /// `sendBufferBytes` makes a large write take the time it takes on a slow link
    /// (the write returns once the server read most of it), instead of vanishing into
    /// the kernel's buffers at once.
    init(port: Int, timeoutSeconds: Int = 5, sendBufferBytes: Int32? = nil) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = sendBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw TestFailure("connect: errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// Sends the upgrade request for `path` (with query) and reads the response head.
    /// Returns its status line and whatever followed the head in the same reads.
    func upgrade(path: String) throws -> (status: String, rest: [UInt8]) {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        guard write(Array(request.utf8)) else { throw TestFailure("upgrade request not written: errno \(errno)") }
        var head: [UInt8] = []
        let separator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = head.indices.first(where: { head[$0...].starts(with: separator) }) {
                let status = String(decoding: head[..<(head.firstIndex(of: 13) ?? end)], as: UTF8.self)
                return (status, Array(head[(end + 4)...]))
            }
            guard case .data(let bytes) = read() else { throw TestFailure("no upgrade response") }
            head += bytes
        }
    }

    /// Writes `bytes` with one `send` (blocking until the kernel took all of it); false
    /// when the connection was reset (or closed) before that.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var flags: Int32 = 0
        #if canImport(Glibc)
        flags = Int32(MSG_NOSIGNAL)
        #endif
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
        return sent == bytes.count
    }

    /// Reads frames (after `rest`, what the upgrade read past the head) until the
    /// connection ends. A close frame is answered with the same code once, as every
    /// client does; messages after it are not expected.
    func readToEnd(after rest: [UInt8]) -> Transcript {
        var transcript = Transcript()
        var buffer = rest
        var answered = false
        while true {
            while let (opcode, payload, used) = Self.parseFrame(buffer) {
                buffer.removeFirst(used)
                switch opcode {
                case 2: transcript.messages.append(payload)
                case 8:
                    let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1005
                    transcript.close = (code, String(decoding: payload.dropFirst(2), as: UTF8.self))
                    if !answered {
                        answered = true
                        write(Self.frame(opcode: 8, Array(payload.prefix(2))))
                    }
                default: break
                }
            }
            switch read() {
            case .data(let bytes): buffer += bytes
            case .end(let end):
                transcript.end = end
                return transcript
            }
        }
    }

    private enum ReadResult { case data([UInt8]), end(End) }

    private func read() -> ReadResult {
        var bytes = [UInt8](repeating: 0, count: 65536)
        let count = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 { return .data(Array(bytes.prefix(count))) }
        if count == 0 { return .end(.endOfStream) }
        return .end(errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .reset)
    }

    /// A masked client frame (RFC 6455 §5.2).
    static func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xffff {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (8 * UInt64($0))) & 0xff) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// One unmasked server frame at the start of `buffer`: opcode, payload, bytes used.
    static func parseFrame(_ buffer: [UInt8]) -> (UInt8, [UInt8], Int)? {
        guard buffer.count >= 2 else { return nil }
        var length = Int(buffer[1] & 0x7f)
        var offset = 2
        if length == 126 {
            guard buffer.count >= 4 else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            guard buffer.count >= 10 else { return nil }
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        guard buffer.count >= offset + length else { return nil }
        return (buffer[0] & 0x0f, Array(buffer[offset..<(offset + length)]), offset + length)
    }
}
