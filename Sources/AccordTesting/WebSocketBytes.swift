/// WebSocket bytes built and read by hand (RFC 6455), for tests that play clients no
/// library would: frames sent with the upgrade request, unmasked frames, a message
/// announced larger than what follows, a reader that never reads.
public enum WebSocketBytes {
    /// The upgrade request for `path` (with its query), headers as given.
    public static func upgradeRequest(path: String, headers: [(String, String)] = []) -> [UInt8] {
        var text = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// One frame. Clients must mask; `masked: false` breaks that rule on purpose.
    /// `announcedLength` states a payload length other than the real one (a message
    /// that never finishes arriving).
    public static func frame(
        opcode: UInt8 = 0x2, _ payload: [UInt8], final: Bool = true, masked: Bool = true,
        announcedLength: Int? = nil
    ) -> [UInt8] {
        let length = announcedLength ?? payload.count
        var bytes: [UInt8] = [(final ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if length < 126 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes += [UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(length) >> (8 * UInt64($0))) }
        }
        guard masked else { return bytes + payload }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        bytes += mask
        bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return bytes
    }

    /// A frame as a server sends it (never masked).
    public struct Frame: Equatable, Sendable {
        public var opcode: UInt8
        public var payload: [UInt8]
        /// For a close frame: its status code, or nil when it carries none.
        public var closeCode: UInt16? {
            guard opcode == 0x8, payload.count >= 2 else { return nil }
            return UInt16(payload[0]) << 8 | UInt16(payload[1])
        }
        public var closeReason: String {
            opcode == 0x8 && payload.count > 2 ? String(decoding: payload[2...], as: UTF8.self) : ""
        }
    }

    /// Splits what followed the upgrade response into whole frames; a trailing partial
    /// frame is left out.
    public static func frames(in bytes: [UInt8]) -> [Frame] {
        var frames: [Frame] = []
        var index = 0
        while index + 2 <= bytes.count {
            let opcode = bytes[index] & 0x0F
            var length = Int(bytes[index + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard index + 4 <= bytes.count else { break }
                length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                header = 4
            } else if length == 127 {
                guard index + 10 <= bytes.count else { break }
                length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[index + $1]) }
                header = 10
            }
            guard length >= 0, index + header + length <= bytes.count else { break }
            frames.append(Frame(opcode: opcode, payload: Array(bytes[(index + header)..<(index + header + length)])))
            index += header + length
        }
        return frames
    }

    /// The status of an HTTP response head and the bytes after it, or nil while the
    /// head is incomplete.
    public static func splitResponse(_ bytes: [UInt8]) -> (status: Int, rest: [UInt8])? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4,
              let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<($0 + 4)]) == terminator })
        else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, Array(bytes[(end + 4)...]))
    }
}
