import AccordCRDT

/// The members of a string set as its column in the index holds them: a JSON array of
/// strings in code point order (`["phone","urgent"]`), readable by anything that opens
/// the file. The row is where a record's members are found: to return them with the
/// record, and to clear them from the members table (which is keyed by member).
enum MemberList {
    /// The JSON array of `set`'s members.
    static func text(_ set: StringSet) -> String {
        // Members rarely need escaping: then the text is the members joined.
        let plain = set.members.allSatisfy { member in
            member.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        }
        if set.isEmpty { return "[]" }
        if plain { return "[\"" + set.members.joined(separator: "\",\"") + "\"]" }
        return AnyValue.array(set.members.map { .string($0) }).jsonText
    }

    /// The set a column written by ``text(_:)`` holds; nil when `text` is not a JSON
    /// array of strings (the file was changed by something else).
    static func set(_ text: String) -> StringSet? {
        if text == "[]" { return [] }
        guard case .array(let items)? = try? AnyValue(jsonText: text) else { return nil }
        var members: [String] = []
        members.reserveCapacity(items.count)
        for item in items {
            guard case .string(let member) = item else { return nil }
            members.append(member)
        }
        return StringSet(members)
    }
}
