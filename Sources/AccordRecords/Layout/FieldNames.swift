import AccordCRDT

/// A model's field names in schema order, found by a name's bits before its text.
///
/// A save looks up every field it is given. The names an app passes are almost always
/// the same literals the schema was made from, or small strings (whose bits are their
/// text), so comparing 16 bytes per field finds them without hashing; any other name
/// is found by `==`, as a `[String: …]` look-up would (canonical equivalence).
struct FieldNames {
    let names: [String]
    /// Each name's bits, read while `names` keeps the strings alive.
    private let bits: [(UInt64, UInt64)]
    /// Where the schema declares the `id` field, if it does.
    let idPosition: Int?

    init(_ fields: [FieldSchema]) {
        names = fields.map(\.name)
        bits = names.map { $0.bits ?? (0, 0) }
        idPosition = names.firstIndex(of: ModelSchema.idField)
    }

    /// The position of the field named `name` in the schema.
    func position(of name: String) -> Int? {
        if let wanted = name.bits {
            for position in bits.indices where bits[position] == wanted { return position }
        }
        return names.firstIndex(of: name)
    }
}
