import AccordCRDT
import AccordStore

extension RecordBatchWrite {
    /// Adds `write`, a record of ``schema`` that `doc` (the document as stored) does not
    /// hold, to `update` instead of writing it into a `Doc`: its id, defaults and values
    /// resolved and checked as ``write(_:to:milliseconds:random:willWrite:)`` does, and
    /// returns the record as saved (for the index). Unique fields and constraints are
    /// not checked here: the caller takes this path only for models without them.
    /// - Throws: `INVALID_ARGUMENT` naming the field; `INVALID_ARGUMENT` too when `doc`
    ///   holds the record after all, or held it once (a deleted record's entry must be
    ///   the new one's origin, which only a `Doc` write gives it); the caller checked.
    package func add<R: RandomNumberGenerator>(
        new write: RecordWrite, to update: inout NewRecordsUpdate, existing doc: Doc, milliseconds: UInt64, random: inout R
    ) throws(AccordError) -> RecordData {
        let record = try prepare(write, in: doc, milliseconds: milliseconds, random: &random)
        guard try !doc.getMap(schema.name).hasEntry(record.id) else {
            throw AccordError(
                .invalidArgument, "Model \"\(schema.name)\": record \"\(record.id)\" exists; it cannot be written as new",
                details: ["model": schema.name, "id": record.id])
        }
        update.add(id: record.id, model: schema.name, values: record.changes)
        return RecordData(id: record.id, values: record.saved)
    }
}
