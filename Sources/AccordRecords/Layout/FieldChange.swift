/// One checked change of a record's field: its new value, or nil when the field is
/// removed (``RecordLayout/check(_:removing:id:model:)``).
///
/// A struct rather than a `(field:value:)` tuple: an array of tuples is destroyed
/// through the runtime's generic tuple code, element by element, which on a batch of
/// new records cost more than writing their changes out.
struct FieldChange {
    let field: String
    let value: RecordValue?

    init(_ field: String, _ value: RecordValue?) {
        self.field = field
        self.value = value
    }
}
