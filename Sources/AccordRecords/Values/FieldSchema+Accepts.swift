extension FieldSchema {
    /// Whether a save may write `value` into this field: the rule ``RecordBatchWrite``
    /// applies, for callers that report every bad field at once instead of the first.
    package func accepts(_ value: RecordValue) -> Bool {
        (try? FieldCoding.check(value, for: self, model: "")) != nil
    }
}
