public import AccordCRDT

/// The SHA-256 of a blob's content: its name in a ``BlobStore``.
///
/// Printed (``description``, ``hex``) and parsed as 64 lowercase hexadecimal digits,
/// the form `sha256sum` prints. Ordered by its bytes, which is also its hex order.
public struct BlobHash: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    /// The digest size in bytes.
    public static let byteCount = 32

    /// A hash from its 32 bytes; any other count is `INVALID_ARGUMENT`.
    public init(bytes: [UInt8]) throws(AccordError) {
        guard bytes.count == Self.byteCount else {
            throw AccordError(
                .invalidArgument, "a blob hash has \(Self.byteCount) bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Parses 64 hexadecimal digits (either case). Anything else, such as a wrong
    /// length, a `0x` prefix or spaces, is `INVALID_ARGUMENT`.
    public init(hex: String) throws(AccordError) {
        let digits = Array(hex.utf8)
        guard digits.count == Self.byteCount * 2 else {
            throw AccordError(
                .invalidArgument, "a blob hash is \(Self.byteCount * 2) hex digits, got \(digits.count) bytes of text",
                details: ["hash": String(hex.prefix(80))])
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
                throw AccordError(
                    .invalidArgument, "a blob hash has a non-hex character near offset \(index)",
                    details: ["hash": hex])
            }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// For digests this module computed or already validated: the count is known to be 32.
    init(validatedBytes bytes: [UInt8]) {
        assert(bytes.count == Self.byteCount)
        self.bytes = bytes
    }

    /// 64 lowercase hex digits.
    public var hex: String { HexText.encode(bytes) }

    public var description: String { hex }

    public static func < (a: BlobHash, b: BlobHash) -> Bool {
        a.bytes.lexicographicallyPrecedes(b.bytes)
    }

    /// The 32 bytes in one piece: the synthesized hashing fed the hasher a byte at a
    /// time, which made sets of a document's thousands of references slow to build.
    /// (Equality stays byte for byte, so equal hashes still hash alike.)
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
