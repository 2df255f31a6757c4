/// Base64url without padding (RFC 4648 §5), the encoding of every JWS segment (RFC 7515 §2).
///
/// Decoding is strict on purpose: only the 64 URL-safe characters, no `=`, no white
/// space, no length that leaves a lone character (length % 4 == 1), and the unused low
/// bits of the last character must be zero. Lenient decoders accept several spellings of
/// the same bytes; a token then has more than one valid form, which is a needless gap
/// for anyone matching, caching or revoking tokens by their text.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The value (0..<64) of each ASCII byte, or nil outside the alphabet.
    private static let values: [UInt8?] = {
        var table = [UInt8?](repeating: nil, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= bytes.count {
            let group = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int(group >> UInt32(shift) & 63)]) }
            i += 3
        }
        switch bytes.count - i {
        case 1:
            let group = UInt32(bytes[i]) << 16
            for shift in [18, 12] { out.append(alphabet[Int(group >> UInt32(shift) & 63)]) }
        case 2:
            let group = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            for shift in [18, 12, 6] { out.append(alphabet[Int(group >> UInt32(shift) & 63)]) }
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil when it is not canonical unpadded base64url.
    static func decode<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text {
            guard let value = values[Int(character)] else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Whatever is left did not make a whole byte; in the canonical form it is zero.
        guard accumulator == 0 else { return nil }
        return out
    }
}
