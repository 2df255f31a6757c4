import AccordCRDT

/// The members of a string set as its column in the index holds them: a JSON array of
/// strings in code point order (`["phone","urgent"]`), readable by anything that opens
/// the file. The row is where a record's members are found: to return them with the
/// record, and to clear them from the members table (which is keyed by member).
enum MemberList {
    /// The JSON array of `set`'s members, built as bytes in one pass (a string built
    /// by joining showed in profiles of the index writer).
    static func text(_ set: StringSet) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(set.members.reduce(2) { $0 + $1.utf8.count + 3 })
        bytes.append(UInt8(ascii: "["))
        for (position, member) in set.members.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            AnyValue.writeJSONString(member, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
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
