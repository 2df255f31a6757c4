/// A ULID: 48 bits of milliseconds since 1970 then 80 random bits, in Crockford's
/// base32 (26 characters). Ids made later sort later, as text and by code points,
/// which keeps auto-assigned ids in creation order in queries sorted by id.
enum ULID {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    static func make<R: RandomNumberGenerator>(milliseconds: UInt64, using random: inout R) -> String {
        var bits = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bits[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * UInt64(5 - index))) }
        for index in 6..<16 { bits[index] = UInt8.random(in: .min ... .max, using: &random) }
        // 128 bits as 26 groups of 5, the first group holding the top 3 bits.
        var text: [UInt8] = []
        text.reserveCapacity(26)
        for group in 0..<26 {
            let bitOffset = group == 0 ? 0 : 3 + (group - 1) * 5
            let width = group == 0 ? 3 : 5
            var value = 0
            for bit in bitOffset..<(bitOffset + width) {
                value = value << 1 | Int(bits[bit / 8] >> (7 - UInt8(bit % 8)) & 1)
            }
            text.append(alphabet[value])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
