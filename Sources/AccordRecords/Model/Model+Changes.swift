public import AccordCRDT
public import AccordStore

extension Model {
    /// Calls `handler` for every durable change to records of this model, through the
    /// client the model is bound to (see ``ClientRecords/subscribe(_:_:)``).
    /// - Throws: `MODEL_NOT_REGISTERED` when no client has the model.
    public static func subscribe(_ handler: @escaping @Sendable (RecordChange) -> Void) throws(AccordError) -> RecordSubscription {
        try boundRecords().records.subscribe(schema.name, handler)
    }

    /// Saves this record into `document`, matched by the values it holds for unique
    /// constraint `constraint` (a unique field or a named constraint) to the record of
    /// the document that holds them, per `mode` (see
    /// ``ClientRecords/upsertByUnique(_:constraint:_:in:mode:)``). The constraint's
    /// values are always sent, changed or not, since the match needs them.
    @discardableResult
    public func upsertByUnique(
        _ constraint: String, in document: DocumentID, mode: ClientRecords.UpsertMode = .either
    ) async throws(AccordError) -> Self {
        var write = storage.write
        let fields = Self.schema.uniqueConstraints.first { $0.name == constraint }?.fields ?? [constraint]
        for field in fields where write.values[field] == nil {
            if let value = storage[field] { write.values[field] = value }
        }
        let saved = try await Self.boundRecords().records.upsertByUnique(
            Self.schema.name, constraint: constraint, write, in: document, mode: mode)
        return Self(storage: RecordStorage(saved))
    }
}
