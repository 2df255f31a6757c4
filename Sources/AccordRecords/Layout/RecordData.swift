/// One record as a document holds it: its id and the fields it has written. A field
/// never written is absent (not in `values`); a field set to nothing holds `.null`.
public struct RecordData: Sendable, Hashable {
    public var id: String
    public var values: [String: RecordValue]

    public init(id: String, values: [String: RecordValue] = [:]) {
        self.id = id
        self.values = values
    }

    /// The value of `field`: the id for `id`, nil when the record never wrote it.
    public subscript(field: String) -> RecordValue? {
        field == ModelSchema.idField ? .string(id) : values[field]
    }
}
