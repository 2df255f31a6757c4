public import AccordCRDT
public import AccordStore
public import AccordSync

/// The records API of one model on one client, typed: what the ``Model`` statics call,
/// and what `client.records(Task.self)` gives apps with several clients.
public struct ModelRecords<M: Model>: Sendable {
    public let records: ClientRecords

    public func find(_ id: String, in documents: [DocumentID]? = nil) throws(AccordError) -> M? {
        try records.find(M.schema.name, id: id, in: documents).map(Self.model)
    }

    public func query(_ filter: Filter = .all, _ options: QueryOptions = QueryOptions()) throws(AccordError) -> [M] {
        try records.query(M.schema.name, filter: filter, options: options).map(Self.model)
    }

    public func queryOne(_ filter: Filter = .all, _ options: QueryOptions = QueryOptions()) throws(AccordError) -> M? {
        try records.queryOne(M.schema.name, filter: filter, options: options).map(Self.model)
    }

    public func queryPaged(_ filter: Filter = .all, _ options: QueryOptions = QueryOptions()) throws(AccordError) -> ModelPage<M> {
        let page = try records.queryPaged(M.schema.name, filter: filter, options: options)
        return ModelPage(data: page.data.map(Self.model), nextCursor: page.nextCursor)
    }

    public func count(_ filter: Filter = .all, documents: [DocumentID]? = nil) throws(AccordError) -> Int {
        try records.count(M.schema.name, filter: filter, documents: documents)
    }

    public func aggregate(_ options: AggregateOptions) throws(AccordError) -> [AggregateRow] {
        try records.aggregate(M.schema.name, options)
    }

    public func findByUnique(_ constraint: String, _ values: [String: RecordValue]) throws(AccordError) -> M? {
        try records.findByUnique(M.schema.name, constraint: constraint, values: values).map(Self.model)
    }

    public func save(_ model: M, in document: DocumentID, upsertOn field: String? = nil) async throws(AccordError) -> M {
        var write = model.storage.write
        if let field, write.id == nil || model.storage.isNew {
            // An existing record of the document with the same value of the unique field
            // is the one to update.
            guard M.schema.field(field)?.unique == true else {
                throw AccordError(
                    .invalidArgument, "Model \"\(M.schema.name)\": upsertOn \"\(field)\" is not a unique field.",
                    details: ["model": M.schema.name, "field": field])
            }
            if let value = model.storage[field],
               let existing = try records.findByUnique(M.schema.name, constraint: field, values: [field: value], in: [document]) {
                write.id = existing.id
            }
        }
        let saved = try await records.save(M.schema.name, write, in: document)
        return Self.model(saved)
    }

    public func delete(_ id: String, in document: DocumentID) async throws(AccordError) {
        try await records.delete(M.schema.name, id: id, in: document)
    }

    static func model(_ record: IndexedRecord) -> M { M(storage: RecordStorage(record)) }
}

extension AccordClient {
    /// Registers typed models (their schemas; see ``registerModels(_:)-(ModelSchema)``)
    /// and binds their statics to this client unless another client has them already.
    /// - Throws: `INVALID_SCHEMA` (reason `schemaHashMismatch`, registering nothing)
    ///   when a generated model's schema does not hash to its embedded
    ///   ``Model/schemaHash``: re-run `accord codegen`.
    @discardableResult
    public func registerModels(_ types: [any Model.Type]) throws(AccordError) -> ClientRecords {
        for type in types { try type.checkSchemaHash() }
        let records = try registerModels(types.map { $0.schema })
        for type in types { ModelRegistry.bind(type.schema.name, to: records) }
        return records
    }

    /// The typed records API of `type` on this client.
    /// - Throws: `MODEL_NOT_REGISTERED` unless `type` is registered with this client.
    public nonisolated func records<M: Model>(_ type: M.Type) throws(AccordError) -> ModelRecords<M> {
        guard let records, records.models[M.schema.name] != nil else {
            throw AccordError(
                .modelNotRegistered, "model \"\(M.schema.name)\" is not registered with this client",
                details: ["model": M.schema.name])
        }
        return ModelRecords(records: records)
    }
}
