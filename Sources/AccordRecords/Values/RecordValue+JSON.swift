public import AccordCRDT

/// Field values as JSON, the form the CLI and other SDKs exchange: numbers, strings
/// (ids and dates included: a date is its canonical `YYYY-MM-DDTHH:MM:SS.sssZ` text),
/// booleans and null as themselves, a string set as an array of strings.
extension RecordValue {
    /// The value `json` stands for, whatever field it is meant for (the field's type is
    /// checked when the value is written); nil for JSON no field can hold: an object,
    /// an array with a non-string in it, a bare `undefined`.
    public init?(json: AnyValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .number(Double(number))
        case .double(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let elements):
            var members: [String] = []
            for element in elements {
                guard case .string(let member) = element else { return nil }
                members.append(member)
            }
            self = .stringSet(StringSet(members))
        case .undefined, .bytes, .object: return nil
        }
    }

    /// The value as JSON: integral numbers as integers (as JavaScript prints them), a
    /// string set as its members in code point order.
    public var json: AnyValue { FieldCoding.content(self) }
}
