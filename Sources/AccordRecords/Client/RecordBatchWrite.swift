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
    /// The fields a new record gets a value for when not given: those with a default,
    /// and auto-assigned ones other than the id. Found once per batch, so a model
    /// without any (the usual case) costs a new record no look-up per field.
    private let filledFields: [FieldSchema]
    /// The model's field names, for ``RecordLayout/checkNamingID(_:removing:id:model:names:)``.
    private let fieldNames: FieldNames

    package init(schema: ModelSchema, index: RecordIndex, document: DocumentID) {
        self.schema = schema
        self.index = index
        self.document = document
        fieldNames = FieldNames(schema.fields)
        filledFields = schema.fields.filter { $0.defaultValue != nil || ($0.autoAssign && $0.name != ModelSchema.idField) }
    }

    /// Writes `writes` into `doc` (the current state of ``document``) in one transaction
    /// and returns the records' ids in order. See ``write(_:to:milliseconds:random:)``.
    package func apply<R: RandomNumberGenerator>(
        _ writes: [RecordWrite], to doc: Doc, milliseconds: UInt64, random: inout R
    ) throws(AccordError) -> [String] {
        try write(writes, to: doc, milliseconds: milliseconds, random: &random).map(\.id)
    }

    /// Writes `writes` into `doc` (the current state of ``document``) in one transaction
    /// and returns the records as saved, in order (null fields left out, as reads leave
    /// them). Every record is checked before anything is written, so a refused batch
    /// costs no edit to roll back (a transaction that throws is rolled back whole) and
    /// leaves `doc` unchanged. The saved records are worked out from what each record held
    /// before and what was written, not read back: reading the document again would
    /// cost as much as the write.
    /// - Parameters:
    ///   - milliseconds: the time for ULIDs (since 1970), passed in rather than read here.
    ///   - random: the randomness for ULIDs.
    ///   - willWrite: called with the records as saved once every check passed, just
    ///     before the transaction (the client hands them to the document's projector,
    ///     which then indexes them without reading them back out of `doc`).
    /// - Throws: `INVALID_ARGUMENT` naming the field (and `details["batchIndex"]`, the
    ///   record's position in `writes`), `UNIQUE_VIOLATION` naming the constraint and the
    ///   record that holds it.
    package func write<R: RandomNumberGenerator>(
        _ writes: [RecordWrite], to doc: Doc, milliseconds: UInt64, random: inout R,
        willWrite: ([RecordData]) -> Void = { _ in }
    ) throws(AccordError) -> [RecordData] {
        // The model's root map, found once for the batch (by name: a hashed look-up).
        let root = try doc.getMap(schema.name)
        var prepared: [Prepared] = []
        prepared.reserveCapacity(writes.count)
        // A record written twice in one batch reads, the second time, as the first left it.
        // Sized once: grown write by write, it rehashed every id already in it along the way.
        var earlier: [String: Int] = .init(minimumCapacity: writes.count)
        for (position, write) in writes.enumerated() {
            do throws(AccordError) {
                var record = try prepare(write, inRoot: root, milliseconds: milliseconds, random: &random)
                if let previous = earlier.updateValue(prepared.count, forKey: record.id) {
                    record.saved = Self.applying(record.changes, to: prepared[previous].saved)
                    // The earlier write creates it.
                    record.isNew = false
                }
                prepared.append(record)
            } catch {
                var details = error.details
                details["batchIndex"] = String(position)
                throw AccordError(error.code, error.message, details: details)
            }
        }
        try UniquenessCheck(schema: schema, index: index).check(prepared.map { ($0.id, $0.values) }, in: document, doc: doc)
        let saved = prepared.map { RecordData(id: $0.id, values: $0.saved) }
        willWrite(saved)
        do {
            try doc.transact {
                for record in prepared {
                    // A record new to the document (its first write in the batch) goes
                    // straight into a new map.
                    if record.isNew {
                        try RecordLayout.writeNew(checked: record.changes, id: record.id, into: root)
                    } else {
                        try RecordLayout.write(checked: record.changes, id: record.id, into: root)
                    }
                }
            }
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(.invalidArgument, "writing records failed: \(error)")
        }
        return saved
    }

    /// One record ready to write: its id resolved, its values with defaults filled when
    /// new, the checked changes, and the record as it will read once written.
    struct Prepared {
        var id: String
        var values: [String: RecordValue]
        var changes: [FieldChange]
        var saved: [String: RecordValue]
        /// The document holds no record with this id, and no earlier write of the batch
        /// creates it.
        var isNew = false
    }

    /// One record with its id resolved and, when new, its defaults filled; checked.
    func prepare<R: RandomNumberGenerator>(
        _ write: RecordWrite, in doc: Doc, milliseconds: UInt64, random: inout R
    ) throws(AccordError) -> Prepared {
        try prepare(write, inRoot: try doc.getMap(schema.name), milliseconds: milliseconds, random: &random)
    }

    /// ``prepare(_:in:milliseconds:random:)`` with the model's root map already found.
    func prepare<R: RandomNumberGenerator>(
        _ write: RecordWrite, inRoot root: YMap, milliseconds: UInt64, random: inout R
    ) throws(AccordError) -> Prepared {
        let id: String
        if let given = write.id {
            id = given
        } else {
            id = try autoAssignedID(milliseconds, &random)
        }
        var values = write.values
        let existing = try RecordLayout.record(id, of: schema, inRoot: root)
        if existing == nil {
            for field in filledFields where values[field.name] == nil && !write.removing.contains(field.name) {
                if let value = field.defaultValue {
                    values[field.name] = value
                } else if field.autoAssign, field.name != ModelSchema.idField {
                    values[field.name] = .string(ULID.make(milliseconds: milliseconds, using: &random))
                }
            }
        }
        let (changes, namesID) = try RecordLayout.checkNamingID(
            values, removing: write.removing, id: id, model: schema, names: fieldNames)
        // The id is the record's key, not one of its values (looked for only when given).
        if namesID { values[ModelSchema.idField] = nil }
        // A new record without nulls reads back as exactly the values written.
        let saved = existing == nil && !values.values.contains(.null)
            ? values : Self.applying(changes, to: existing?.values ?? [:])
        return Prepared(id: id, values: values, changes: changes, saved: saved, isNew: existing == nil)
    }

    /// What a read returns once `changes` are written over a record holding `values`:
    /// each change applied, and null (a field set to nothing) left out.
    private static func applying(
        _ changes: [FieldChange], to values: [String: RecordValue]
    ) -> [String: RecordValue] {
        var saved = values
        for (name, value) in saved where value == .null { saved[name] = nil }
        for change in changes {
            if let value = change.value, value != .null { saved[change.field] = value } else { saved[change.field] = nil }
        }
        return saved
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
