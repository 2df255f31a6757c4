public import AccordCRDT
public import AccordStore

/// A typed record: hand-written types adopt it, and `accord codegen` generates them.
/// A model keeps its values in ``storage`` (with what changed since it was read) and
/// exposes them as typed properties:
///
/// ```swift
/// struct Task: Model {
///     static let schema = ModelSchema("tasks", fields: [
///         FieldSchema("id", .id, autoAssign: true),
///         FieldSchema("title", .string), FieldSchema("priority", .number, indexed: true),
///     ])
///     var storage: RecordStorage
///     init(storage: RecordStorage) { self.storage = storage }
///     var title: String { get { storage.string("title") ?? "" } set { storage.set("title", newValue) } }
///     var priority: Double { get { storage.number("priority") ?? 0 } set { storage.set("priority", newValue) } }
/// }
///
/// try await client.registerModels([Task.self])
/// var task = Task(storage: RecordStorage())
/// task.title = "Buy milk"
/// task = try await task.save(in: "inbox")
/// let urgent = try Task.query(["priority": ["$gte": 2]], QueryOptions(sortOrder: [SortKey("priority", .descending)]))
/// ```
public protocol Model: Sendable {
    static var schema: ModelSchema { get }
    var storage: RecordStorage { get set }
    init(storage: RecordStorage)
    /// The ``ModelSchema/schemaHash`` of ``schema`` when the type was generated (nil for
    /// hand-written models): registration refuses a model whose schema no longer
    /// hashes to it, see ``AccordSync/AccordClient/registerModels(_:)-([any Model.Type])``.
    static var schemaHash: String? { get }
}

extension Model {
    public static var schemaHash: String? { nil }

    /// The record's id (nil for a new record whose id is auto-assigned at save).
    public var id: String? { storage.id }
    /// The document it was read from or saved to.
    public var document: DocumentID? { storage.document }

    public mutating func discardChanges() { storage.discardChanges() }
    public mutating func markAllChanged() { storage.markAllChanged() }

    /// The statics read and write through the client the model is registered with
    /// (the first one, when several are; `client.records(Task.self)` picks one).
    public static func boundRecords() throws(AccordError) -> ModelRecords<Self> {
        guard let records = ModelRegistry.records(for: schema.name) else {
            throw AccordError(
                .modelNotRegistered, "model \"\(schema.name)\" is not registered with any client (call client.registerModels)",
                details: ["model": schema.name])
        }
        return ModelRecords(records: records)
    }

    public static func find(_ id: String, in documents: [DocumentID]? = nil) throws(AccordError) -> Self? {
        try boundRecords().find(id, in: documents)
    }

    public static func findAll() throws(AccordError) -> [Self] { try boundRecords().query() }

    public static func query(_ filter: Filter = .all, _ options: QueryOptions = QueryOptions()) throws(AccordError) -> [Self] {
        try boundRecords().query(filter, options)
    }

    public static func queryOne(_ filter: Filter = .all, _ options: QueryOptions = QueryOptions()) throws(AccordError) -> Self? {
        try boundRecords().queryOne(filter, options)
    }

    public static func queryPaged(
        _ filter: Filter = .all, _ options: QueryOptions = QueryOptions()
    ) throws(AccordError) -> ModelPage<Self> {
        try boundRecords().queryPaged(filter, options)
    }

    public static func count(_ filter: Filter = .all, documents: [DocumentID]? = nil) throws(AccordError) -> Int {
        try boundRecords().count(filter, documents: documents)
    }

    public static func aggregate(_ options: AggregateOptions) throws(AccordError) -> [AggregateRow] {
        try boundRecords().aggregate(options)
    }

    public static func findByUnique(_ constraint: String, _ values: [String: RecordValue]) throws(AccordError) -> Self? {
        try boundRecords().findByUnique(constraint, values)
    }

    /// Saves the record into `document` (see ``ClientRecords/save(_:_:in:client:)``)
    /// and returns it as saved.
    @discardableResult
    public func save(in document: DocumentID) async throws(AccordError) -> Self {
        try await Self.boundRecords().save(self, in: document, upsertOn: nil)
    }

    /// ``save(in:)`` matching by a unique field named at run time: when a record of
    /// the document already holds this record's value of `field`, that record is
    /// updated. Generated models have `save(in:upsertOn:)` with a typed field instead,
    /// so a misspelt name does not compile.
    @discardableResult
    public func save(in document: DocumentID, upsertOnField field: String) async throws(AccordError) -> Self {
        try await Self.boundRecords().save(self, in: document, upsertOn: field)
    }

    public func delete(in document: DocumentID) async throws(AccordError) {
        guard let id else { return }
        try await Self.boundRecords().delete(id, in: document)
    }
}

/// One page of a typed query.
public struct ModelPage<M: Model>: Sendable {
    public var data: [M]
    public var nextCursor: String?
    public var hasMore: Bool { nextCursor != nil }
}
