import AccordCRDT
import AccordStore

/// One record write that passed every check of ``RecordBatchWrite`` (id resolved,
/// defaults filled, values valid, uniqueness), ready to go into a transaction.
package struct PreparedRecordWrite {
    package let model: ModelSchema
    package let id: String
    let values: [String: RecordValue]
    /// The checked changes (field → value, nil: removed).
    let changes: [FieldChange]
}

extension RecordBatchWrite {
    /// Checks `writes` exactly as ``apply(_:to:milliseconds:random:)`` does, writing
    /// nothing: for callers that put the writes of several models (and deletes) into one
    /// transaction, which checks everything before the first write (a `Doc`
    /// transaction that throws is rolled back whole, but a refusal found up front costs
    /// no edit to undo).
    /// - Throws: as ``apply(_:to:milliseconds:random:)``.
    package func prepare<R: RandomNumberGenerator>(
        _ writes: [RecordWrite], in doc: Doc, milliseconds: UInt64, random: inout R
    ) throws(AccordError) -> [PreparedRecordWrite] {
        var prepared: [PreparedRecordWrite] = []
        for (position, write) in writes.enumerated() {
            do throws(AccordError) {
                let record = try prepare(write, in: doc, milliseconds: milliseconds, random: &random)
                prepared.append(PreparedRecordWrite(model: schema, id: record.id, values: record.values, changes: record.changes))
            } catch {
                var details = error.details
                details["batchIndex"] = String(position)
                throw AccordError(error.code, error.message, details: details)
            }
        }
        try UniquenessCheck(schema: schema, index: index).check(prepared.map { ($0.id, $0.values) }, in: document, doc: doc)
        return prepared
    }
}

extension PreparedRecordWrite {
    /// Writes the record into `doc` (call inside the caller's transaction). The values
    /// were checked when prepared, so this only fails if the document changed since.
    package func write(in doc: Doc) throws(AccordError) {
        try RecordLayout.write(checked: changes, id: id, model: model, in: doc)
    }
}
