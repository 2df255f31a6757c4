/// The name of a channel: an ephemeral room with no document behind it (see
/// ``ChannelMessage``). Keys are hierarchical, segments separated by `.`
/// (`room-1.section-a`); a session count at `room-1` counts every client at `room-1`
/// or anywhere under it.
///
/// The rule: 1 to ``maxBytes`` bytes; segments of ASCII letters, digits, `-` and `_`,
/// none empty (so no leading, trailing or doubled `.`). Narrower than a document id on
/// purpose: keys end up in token patterns, log lines and metrics labels, and a key that
/// needs no escaping anywhere cannot be spelled two ways.
public struct ChannelKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Longest key, in bytes (all ASCII, so also characters).
    public static let maxBytes = 128

    /// Throws `INVALID_ARGUMENT` saying what is wrong with `key`.
    public init(validating key: String) throws(AccordError) {
        try Self.validate(key)
        rawValue = key
    }

    /// nil when `key` breaks the rule.
    public init?(rawValue: String) {
        guard (try? Self.validate(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: ChannelKey, rhs: ChannelKey) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The segments, outermost first (`a.b.c`: `a`, `b`, `c`).
    public var segments: [Substring] { rawValue.split(separator: ".", omittingEmptySubsequences: false) }

    /// This key and every key above it, outermost first (`a.b.c`: `a`, `a.b`, `a.b.c`):
    /// the counts a client at this key takes part in.
    public var selfAndAncestors: [ChannelKey] {
        var result: [ChannelKey] = []
        var prefix = ""
        for segment in segments {
            prefix = prefix.isEmpty ? String(segment) : prefix + "." + segment
            result.append(ChannelKey(unchecked: prefix))
        }
        return result
    }

    /// A prefix of a valid key cut at a `.` is valid: no second check.
    private init(unchecked key: String) { rawValue = key }

    /// Whether `byte` may appear inside a segment.
    static func isSegmentByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    /// Throws `INVALID_ARGUMENT` (decoders relabel it `MALFORMED_MESSAGE`).
    public static func validate(_ key: String) throws(AccordError) {
        let bytes = key.utf8
        guard !bytes.isEmpty, bytes.count <= maxBytes else {
            throw AccordError(
                .invalidArgument, "a channel key has 1 to \(maxBytes) bytes, not \(bytes.count)",
                details: ["reason": "length"])
        }
        var segmentLength = 0
        for (offset, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: ".") {
                guard segmentLength > 0 else { throw emptySegment(key) }
                segmentLength = 0
            } else if isSegmentByte(byte) {
                segmentLength += 1
            } else {
                throw AccordError(
                    .invalidArgument,
                    "a channel key is made of letters, digits, '-' and '_' in segments separated by '.'; byte \(offset) is not",
                    details: ["reason": "character", "offset": String(offset)])
            }
        }
        guard segmentLength > 0 else { throw emptySegment(key) }
    }

    private static func emptySegment(_ key: String) -> AccordError {
        AccordError(
            .invalidArgument, "a channel key may not start or end with '.' or contain '..' (an empty segment)",
            details: ["reason": "empty-segment"])
    }
}
