public import AccordCRDT
public import AccordStore
public import AccordSync

extension ClientRecords {
    /// How ``upsertByUnique(_:constraint:_:in:mode:)`` treats an existing record.
    public enum UpsertMode: Sendable, Hashable {
        /// Update the record holding the key, or insert one.
        case either
        /// Update it; `RECORD_NOT_FOUND` when none holds the key.
        case mustExist
        /// Insert; `UNIQUE_VIOLATION` when one holds the key already.
        case mustNotExist
    }

    /// The record of `model` that holds `values` for unique constraint `constraint` (a
    /// unique field's name, or a named constraint). Two devices that created the same
    /// key offline both keep their record after merging; this returns the one with the
    /// smallest id, then document (code points), the same on every replica.
    /// - Throws: `INVALID_ARGUMENT` when `constraint` names no unique constraint or a
    ///   value is missing; `MODEL_NOT_REGISTERED`.
    public func findByUnique(
        _ model: String, constraint: String, values: [String: RecordValue], in documents: [DocumentID]? = nil
    ) throws(AccordError) -> IndexedRecord? {
        let fields = try constraintFields(model, constraint)
        var filter: [(String, AnyValue)] = []
        for field in fields {
            guard let value = values[field], value != .null else {
                throw AccordError(
                    .invalidArgument, "Model \"\(model)\": unique constraint \"\(constraint)\" needs a value for \"\(field)\".",
                    details: ["model": model, "constraint": constraint, "field": field])
            }
            filter.append((field, value.json))
        }
        return try queryOne(model, filter: Filter(json: .object(OrderedObject(filter))), options: QueryOptions(documents: documents))
    }

    /// Saves `write` into `document`, matching an existing record of that document by
    /// the values of `constraint` in `write.values` (see ``UpsertMode``).
    @discardableResult
    public func upsertByUnique(
        _ model: String, constraint: String, _ write: RecordWrite, in document: DocumentID, mode: UpsertMode = .either
    ) async throws(AccordError) -> IndexedRecord {
        var write = write
        let existing = try findByUnique(model, constraint: constraint, values: write.values, in: [document])
        switch (mode, existing) {
        case (.mustExist, nil):
            throw AccordError(
                .recordNotFound, "Model \"\(model)\": no record of document \(document) holds that \"\(constraint)\".",
                details: ["model": model, "constraint": constraint, "document": document.rawValue])
        case (.mustNotExist, let found?):
            throw AccordError(
                .uniqueViolation, "Model \"\(model)\": unique constraint \"\(constraint)\" is already held by record \"\(found.id)\".",
                details: ["model": model, "constraint": constraint, "existing": found.id, "document": found.document.rawValue])
        default:
            if let existing { write.id = existing.id }
        }
        return try await save(model, write, in: document)
    }

    /// Saves through the client these records belong to.
    @discardableResult
    public func save(_ model: String, _ write: RecordWrite, in document: DocumentID) async throws(AccordError) -> IndexedRecord {
        try await save(model, write, in: document, client: try boundClient())
    }

    /// Removes a record through the client these records belong to.
    public func delete(_ model: String, id: String, in document: DocumentID) async throws(AccordError) {
        try await delete(model, id: id, in: document, client: try boundClient())
    }

    private func boundClient() throws(AccordError) -> AccordClient {
        guard let client else { throw AccordError(.invalidArgument, "the client of these records is gone") }
        return client
    }

    private func constraintFields(_ model: String, _ constraint: String) throws(AccordError) -> [String] {
        guard let schema = models[model] else { throw Self.notRegistered(model) }
        if let field = schema.fields.first(where: { $0.name == constraint && $0.unique }) { return [field.name] }
        if let named = schema.uniqueConstraints.first(where: { $0.name == constraint }) { return named.fields }
        throw AccordError(
            .invalidArgument, "Model \"\(model)\" has no unique field or constraint \"\(constraint)\".",
            details: ["model": model, "constraint": constraint])
    }
}
