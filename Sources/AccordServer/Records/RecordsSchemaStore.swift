import Foundation
public import AccordCRDT
public import AccordStore
public import AccordRecords

/// The record models of each document, as the server knows them. A document holds its
/// records (one root map per model) but not their schema, which lives in the apps that
/// write them; so the owner registers it with the server
/// (`PUT /v1/documents/{id}/records/$schema`), and the records routes, ingest and
/// bundles read it from here.
///
/// One row per document in the server's storage: category `server.records-schema`,
/// key = document id, value = the schema file JSON `{"models": [...]}` (the form
/// `ModelSchema.models(json:)` reads). Rows are validated before they are written, so a
/// row that does not read back is `STORAGE_CORRUPT`.
public final class RecordsSchemaStore: @unchecked Sendable {
    static let category = StorageCategory("server.records-schema")

    // Invariant behind @unchecked Sendable: `cache` is only touched under `lock`.
    private let storage: SerialStorage
    private let lock = NSLock()
    private var cache: [DocumentID: [ModelSchema]] = [:]

    public init(storage: SerialStorage) {
        self.storage = storage
    }

    /// The models registered for `id`; nil when none were.
    public func models(_ id: DocumentID) throws(AccordError) -> [ModelSchema]? {
        lock.lock()
        defer { lock.unlock() }
        if let cached = cache[id] { return cached }
        guard let bytes = try storage.withAdapter({ try $0.read(Self.category, key: id.rawValue) }) else { return nil }
        let models: [ModelSchema]
        do {
            models = try ModelSchema.models(json: try AnyValue(jsonText: String(decoding: bytes, as: UTF8.self)))
        } catch {
            throw AccordError(.storageCorrupt, "the records schema of \(id) does not read: \(error.message)",
                              details: ["document": id.rawValue])
        }
        cache[id] = models
        return models
    }

    /// Validates `models` together and stores them as the schema of `id`, replacing an
    /// earlier one. Nothing is written when validation fails.
    /// - Throws: what `ModelSchema.validate(_:)` throws (`INVALID_SCHEMA`,
    ///   `RESERVED_FIELD_NAME`, `UNIQUE_ON_STRINGSET`).
    public func setModels(_ models: [ModelSchema], for id: DocumentID) throws(AccordError) {
        try ModelSchema.validate(models)
        let bytes = Array(Self.json(models).jsonText.utf8)
        lock.lock()
        defer { lock.unlock() }
        try storage.withAdapter { try $0.commit([.put(Self.category, key: id.rawValue, value: bytes)]) }
        cache[id] = models
    }

    /// The schema file form of `models`.
    public static func json(_ models: [ModelSchema]) -> AnyValue {
        .object(OrderedObject([("models", .array(models.map(\.json)))]))
    }
}
