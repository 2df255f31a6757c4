public import AccordCRDT

/// Which channels a token lets its holder attach: the token's `channels` claim.
///
/// A pattern is a channel key whose segments may also be `*` (any one segment). A key
/// matches when the pattern matches its first segments: `room-1` allows `room-1` and
/// every key under it (`room-1.section-a`), `*.lobby` allows `x.lobby` and below, `*`
/// allows every key. A parent is a scope, so the rule follows the hierarchy the session
/// counts follow. A token without the claim may attach any channel.
public struct ChannelKeyPattern: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    private let segments: [Substring]

    /// Throws `INVALID_ARGUMENT` for a pattern that is no channel key once each `*`
    /// segment is read as a letter (so the same length and segment rules).
    public init(validating pattern: String) throws(AccordError) {
        let standIn = pattern.split(separator: ".", omittingEmptySubsequences: false)
            .map { $0 == "*" ? "x" : String($0) }.joined(separator: ".")
        do throws(AccordError) {
            try ChannelKey.validate(standIn)
        } catch {
            throw AccordError(
                .invalidArgument, "channel pattern '\(pattern.prefix(ChannelKey.maxBytes))': \(error.message)",
                details: error.details)
        }
        rawValue = pattern
        segments = pattern.split(separator: ".", omittingEmptySubsequences: false)
    }

    public var description: String { rawValue }

    /// Whether a holder of this pattern may attach `key`.
    public func allows(_ key: ChannelKey) -> Bool {
        let keySegments = key.segments
        guard segments.count <= keySegments.count else { return false }
        for (pattern, segment) in zip(segments, keySegments) where pattern != "*" && pattern != segment {
            return false
        }
        return true
    }
}
