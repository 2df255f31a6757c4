import AccordCRDT

/// Between field values and document content. A field is a plain value in the record's
/// map (a string, a number, a boolean, null), except a string set, which is a nested
/// map member → `true` so that concurrent adds and removes of different members merge.
enum FieldCoding {
    /// `value` if it is valid for `field`; else `INVALID_ARGUMENT` naming the field.
    /// Null is valid for every field (a field set to nothing).
    static func check(_ value: RecordValue, for field: FieldSchema, model: String) throws(AccordError) -> RecordValue {
        try check(value, type: field.type, maxCount: field.maxCount, field: field.name, model: model)
        return value
    }

    /// ``check(_:for:model:)`` given the field's parts (a save checks every value: copying
    /// the whole ``FieldSchema`` per value showed in bulk inserts).
    static func check(
        _ value: RecordValue, type: FieldType, maxCount: Int?, field: String, model: String
    ) throws(AccordError) {
        let valid: Bool
        switch (type, value) {
        case (_, .null): valid = true
        case (.id, .string(let text)): valid = !text.isEmpty
        case (.string, .string): valid = true
        case (.date, .string(let text)): valid = ISODate.isCanonical(text)
        case (.number, .number(let number)): valid = number.isFinite
        case (.boolean, .bool): valid = true
        case (.stringSet, .stringSet(let set)): valid = maxCount.map { set.count <= $0 } ?? true
        default: valid = false
        }
        guard valid else {
            throw AccordError(
                .invalidArgument, "Model \"\(model)\": field \"\(field)\" (\(type.rawValue)) cannot hold \(describe(value)).",
                details: ["model": model, "field": field])
        }
    }

    /// The field's value as the document holds it: nil when the content does not fit
    /// the field's type (a record written by a peer that broke the schema).
    static func decode(_ content: YValue, as type: FieldType) -> RecordValue? {
        switch (type, content) {
        case (_, .value(.null)): return .null
        case (.id, .value(.string(let text))): return text.isEmpty ? nil : .string(text)
        case (.string, .value(.string(let text))): return .string(text)
        case (.date, .value(.string(let text))): return ISODate.isCanonical(text) ? .string(text) : nil
        case (.number, .value(.int(let number))): return .number(Double(number))
        case (.number, .value(.double(let number))): return number.isFinite ? .number(number) : nil
        case (.boolean, .value(.bool(let flag))): return .bool(flag)
        case (.stringSet, .map(let map)):
            // A member is a key whose value is true; anything else is not a member.
            // StringSet sorts by code points, so the map's own order does not matter.
            var members: [String] = []
            map.forEachEntry { key, value in if value.isTrue { members.append(key) } }
            return .stringSet(StringSet(members))
        default: return nil
        }
    }

    /// The plain value stored for a scalar field.
    static func content(_ value: RecordValue) -> AnyValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number):
            // Integral numbers are written as integers, as JavaScript peers write them.
            if number.rounded(.towardZero) == number, abs(number) <= 9_007_199_254_740_991, !(number == 0 && number.sign == .minus) {
                return .int(Int64(number))
            }
            return .double(number)
        case .string(let text): return .string(text)
        case .stringSet(let set): return .array(set.members.map { .string($0) })
        }
    }

    static func describe(_ value: RecordValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "the boolean \(flag)"
        case .number(let number): "the number \(number)"
        case .string(let text): "the string \"\(text.prefix(64))\""
        case .stringSet(let set): "a string set of \(set.count) members"
        }
    }
}

extension YValue {
    fileprivate var isTrue: Bool {
        if case .value(.bool(true)) = self { return true }
        return false
    }
}
