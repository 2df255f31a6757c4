import AccordCRDT

/// A group of users, named by the app: `(groupType, groupId)`, e.g. `("team", "design")`.
/// Each part is 1 to 128 bytes of UTF-8 without control characters or `/`, so
/// ``rawValue`` (`type/id`) names exactly one group and both parts fit in a URL path
/// segment.
public struct GroupKey: Hashable, Sendable, Comparable, Codable {
    public let groupType: String
    public let groupID: String

    public static let maxPartBytes = 128

    /// - Throws: `INVALID_ARGUMENT` naming the part that breaks the rule.
    public init(groupType: String, groupID: String) throws(AccordError) {
        try Self.validate(groupType, field: "groupType")
        try Self.validate(groupID, field: "groupId")
        self.groupType = groupType
        self.groupID = groupID
    }

    /// `type/id`, as stored.
    public var rawValue: String { groupType + "/" + groupID }

    /// Reads a stored (or announced) `type/id`; nil when it breaks the rule.
    public init?(rawValue: String) {
        let parts = rawValue.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let key = try? GroupKey(groupType: String(parts[0]), groupID: String(parts[1])) else {
            return nil
        }
        self = key
    }

    public static func < (a: GroupKey, b: GroupKey) -> Bool { a.rawValue.utf8.lexicographicallyPrecedes(b.rawValue.utf8) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let key = GroupKey(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a group key: \(text)"))
        }
        self = key
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    private static func validate(_ part: String, field: String) throws(AccordError) {
        let count = part.utf8.count
        guard count >= 1, count <= maxPartBytes, !part.utf8.contains(UInt8(ascii: "/")),
              !part.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw AccordError(
                .invalidArgument, "\(field) has 1 to \(maxPartBytes) bytes of UTF-8 without control characters or '/'",
                details: ["field": field])
        }
    }
}
