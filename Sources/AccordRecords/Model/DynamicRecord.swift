public import AccordCRDT
public import AccordStore

/// A record of a model known only at run time (a schema loaded from a file, an admin
/// tool): the model's name and a ``RecordStorage``, read and written by field name.
public struct DynamicRecord: Sendable, Hashable {
    public let model: String
    public var storage: RecordStorage

    /// A new record of `model`.
    public init(model: String, id: String? = nil, values: [String: RecordValue] = [:]) {
        self.model = model
        storage = RecordStorage(id: id, values: values)
    }

    /// A record as a query returned it.
    public init(model: String, _ record: IndexedRecord) {
        self.model = model
        storage = RecordStorage(record)
    }

    public var id: String? { storage.id }

    public subscript(field: String) -> RecordValue? {
        get { storage[field] }
        set { storage[field] = newValue }
    }
}

extension ClientRecords {
    /// Saves a dynamic record (only its changed fields, unless new) and returns it as saved.
    @discardableResult
    public func save(_ record: DynamicRecord, in document: DocumentID) async throws(AccordError) -> DynamicRecord {
        DynamicRecord(model: record.model, try await save(record.model, record.storage.write, in: document))
    }
}
