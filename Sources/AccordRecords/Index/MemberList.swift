import AccordCRDT

/// The members of a string set as its column in the index holds them: a JSON array of
/// strings in code point order (`["phone","urgent"]`), readable by anything that opens
/// the file. The row is where a record's members are found: to return them with the
/// record, and to clear them from the members table (which is keyed by member).
enum MemberList {
    /// Appends the JSON array of `set`'s members to `bytes`, in one pass: the index
    /// writer builds it straight into the parameters of its statement (a string built by
    /// joining, then one built from bytes, showed in profiles of the writer).
    static func write(_ set: StringSet, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (position, member) in set.members.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            AnyValue.writeJSONString(member, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The set a column written by ``write(_:to:)`` holds; nil when `text` is not a JSON
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
