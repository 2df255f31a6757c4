import AccordCRDT
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import AccordServer

/// A WebSocket client on a plain TCP socket that can send part of a message and stop,
/// as a hostile client does to make the server hold bytes; `WebSocketClient` only sends
/// whole messages. Reads the server's frames on `/v1/sync` and keeps the error codes.
final class PartialMessageSocket {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: Int, path: String) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("connect failed: \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try write(Array((
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        let deadline = Date().addingTimeInterval(10)
        while !buffer.starts(with: Array("HTTP/1.1 101".utf8)) || buffer.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            guard Date() < deadline else { throw TestFailure("no upgrade: \(String(decoding: buffer, as: UTF8.self))") }
            readAvailable()
        }
        buffer.removeSubrange(..<buffer.firstRange(of: Array("\r\n\r\n".utf8))!.upperBound)
    }

    deinit { close(descriptor) }

    /// The header of a binary message of `length` bytes (masked with a zero key, so the
    /// payload goes as is).
    func startMessage(length: Int) throws {
        var header: [UInt8] = [0x82, 0x80 | 127]
        for shift in stride(from: 56, through: 0, by: -8) { header.append(UInt8(truncatingIfNeeded: length >> shift)) }
        try write(header + [0, 0, 0, 0])
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw TestFailure("send failed: \(errno)") }
            offset += sent
        }
    }

    /// Reads what has arrived; waits (up to the 50 ms receive timeout) only when asked.
    private func readAvailable(wait: Bool = true) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, wait ? 0 : Int32(MSG_DONTWAIT))
            }
            guard count > 0 else { return }
            buffer += chunk[..<count]
            if wait { return }
        }
    }

    /// Error codes of the Accord `error` messages received so far.
    func errorCodes() -> [String] {
        readAvailable(wait: false)
        var codes: [String] = []
        var rest = buffer[...]
        while rest.count >= 2 {
            var length = Int(rest[rest.startIndex + 1] & 0x7f)
            var start = rest.startIndex + 2
            if length == 126, rest.count >= 4 {
                length = Int(rest[start]) << 8 | Int(rest[start + 1])
                start += 2
            } else if length == 127 {
                return codes  // the server sends nothing this big here
            }
            guard rest.endIndex - start >= length else { break }
            let payload = Array(rest[start..<(start + length)])
            if let (_, frame) = try? SyncEndpoint.multiplexed.decode(payload),
               case .error(let code, _, _)? = try? AccordMessage.decode(frame: frame) {
                codes.append(code)
            }
            rest = rest[(start + length)...]
        }
        return codes
    }
}
