import AccordCRDT
import AccordStore

/// The write half of a save, shared by ``ClientRecords/saveBatch(_:_:in:client:)`` and
/// `accord records put`, so both resolve ids and defaults and check records the same
/// way: a record the document does not hold yet gets the model's defaults for fields
/// not given and a ULID for an auto-assigned field; an existing one gets only the
/// given fields. Unique fields and constraints are checked against every record the
/// index holds, so the caller brings the index up to date first.
package struct RecordBatchWrite {
    package let schema: ModelSchema
    package let index: RecordIndex
    package let document: DocumentID

    package init(schema: ModelSchema, index: RecordIndex, document: DocumentID) {
        self.schema = schema
        self.index = index
        self.document = document
    }

    /// Writes `writes` into `doc` (the current state of ``document``) in one transaction
    /// and returns the records' ids in order. Every record is checked before anything
    /// is written, because a transaction that throws halfway keeps what it wrote: a
    /// refused batch leaves `doc` unchanged.
    /// - Parameters:
    ///   - milliseconds: the time for ULIDs (since 1970), passed in rather than read here.
    ///   - random: the randomness for ULIDs.
    /// - Throws: `INVALID_ARGUMENT` naming the field (and `details["batchIndex"]`, the
    ///   record's position in `writes`), `UNIQUE_VIOLATION` naming the constraint and the
    ///   record that holds it.
    package func apply<R: RandomNumberGenerator>(
        _ writes: [RecordWrite], to doc: Doc, milliseconds: UInt64, random: inout R
    ) throws(AccordError) -> [String] {
        var prepared: [(id: String, values: [String: RecordValue], removing: Set<String>)] = []
        for (position, write) in writes.enumerated() {
            do throws(AccordError) {
                prepared.append(try prepare(write, in: doc, milliseconds: milliseconds, random: &random))
            } catch {
                var details = error.details
                details["batchIndex"] = String(position)
                throw AccordError(error.code, error.message, details: details)
            }
        }
        try UniquenessCheck(schema: schema, index: index).check(prepared.map { ($0.id, $0.values) }, in: document, doc: doc)
        do {
            try doc.transact {
                for record in prepared {
                    try RecordLayout.write(record.values, removing: record.removing, id: record.id, model: schema, in: doc)
                }
            }
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(.invalidArgument, "writing records failed: \(error)")
        }
        return prepared.map(\.id)
    }

    /// One record with its id resolved and, when new, its defaults filled; checked.
    func prepare<R: RandomNumberGenerator>(
        _ write: RecordWrite, in doc: Doc, milliseconds: UInt64, random: inout R
    ) throws(AccordError) -> (id: String, values: [String: RecordValue], removing: Set<String>) {
        let id: String
        if let given = write.id {
            id = given
        } else {
            id = try autoAssignedID(milliseconds, &random)
        }
        var values = write.values
        values[ModelSchema.idField] = nil
        if try RecordLayout.record(id, of: schema, in: doc) == nil {
            for field in schema.fields where values[field.name] == nil && !write.removing.contains(field.name) {
                if let value = field.defaultValue {
                    values[field.name] = value
                } else if field.autoAssign, field.name != ModelSchema.idField {
                    values[field.name] = .string(ULID.make(milliseconds: milliseconds, using: &random))
                }
            }
        }
        _ = try RecordLayout.check(values, removing: write.removing, id: id, model: schema)
        return (id, values, write.removing)
    }

    private func autoAssignedID<R: RandomNumberGenerator>(_ milliseconds: UInt64, _ random: inout R) throws(AccordError) -> String {
        guard schema.field(ModelSchema.idField)?.autoAssign == true else {
            throw AccordError(
                .invalidArgument, "Model \"\(schema.name)\": a new record needs an id (the id field is not autoAssign).",
                details: ["model": schema.name, "field": ModelSchema.idField])
        }
        return ULID.make(milliseconds: milliseconds, using: &random)
    }
}
