/// Server-to-client frames (RFC 6455 §5.2): final, no RSV bits, never masked (§5.1:
/// "a server MUST NOT mask any frames that it sends to the client").
enum ServerFrame {
    static let continuation: UInt8 = 0x0
    static let binary: UInt8 = 0x2
    static let close: UInt8 = 0x8
    static let ping: UInt8 = 0x9
    static let pong: UInt8 = 0xA

    /// The most header bytes a frame needs (2, plus 8 for a 64-bit length).
    static let maxHeaderCount = 10

    /// Header bytes for a payload of `count` bytes.
    static func headerCount(payload count: Int) -> Int {
        count < 126 ? 2 : count <= 0xFFFF ? 4 : 10
    }

    /// Writes the header of a final frame into `destination` (at least
    /// ``headerCount(payload:)`` bytes) and returns how many bytes it took.
    @discardableResult
    static func writeHeader(opcode: UInt8, payload count: Int, into destination: UnsafeMutableRawPointer) -> Int {
        let bytes = destination.assumingMemoryBound(to: UInt8.self)
        bytes[0] = 0x80 | opcode
        switch headerCount(payload: count) {
        case 2:
            bytes[1] = UInt8(count)
            return 2
        case 4:
            bytes[1] = 126
            bytes[2] = UInt8(count >> 8)
            bytes[3] = UInt8(count & 0xFF)
            return 4
        default:
            bytes[1] = 127
            for index in 0..<8 { bytes[2 + index] = UInt8(truncatingIfNeeded: UInt64(count) >> (8 * UInt64(7 - index))) }
            return 10
        }
    }

    /// A whole frame, for tests and small control frames.
    static func encode(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: maxHeaderCount)
        let count = header.withUnsafeMutableBytes { writeHeader(opcode: opcode, payload: payload.count, into: $0.baseAddress!) }
        return Array(header[..<count]) + payload
    }
}
