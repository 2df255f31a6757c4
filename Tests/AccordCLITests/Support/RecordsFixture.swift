import AccordCRDT
import AccordStore
import Foundation
import Testing

/// A temporary directory with a schema file and a client store, for running
/// `accord records` against: `store.sqlite` (index beside it) and `schema.json`.
final class RecordsFixture {
    let dir: TemporaryDirectory
    let store = "store.sqlite"
    let schema = "schema.json"

    /// Two models: `tasks` (auto-assigned ids, defaults, a unique slug, a string set, a
    /// date) and `notes` (ids required).
    static let schemaText = """
        {"models": [
          {"name": "tasks", "fields": [
            {"name": "id", "type": "id", "autoAssign": true},
            {"name": "title", "type": "string", "indexed": true},
            {"name": "category", "type": "string"},
            {"name": "hours", "type": "number", "default": 1},
            {"name": "done", "type": "boolean", "default": false},
            {"name": "due", "type": "date"},
            {"name": "tags", "type": "stringset", "maxCount": 4},
            {"name": "slug", "type": "string", "unique": true}]},
          {"name": "notes", "fields": [{"name": "text", "type": "string"}]}
        ]}
        """

    init(schemaText: String = RecordsFixture.schemaText) throws {
        dir = try TemporaryDirectory()
        try dir.write(Array(schemaText.utf8), to: schema)
    }

    var storePath: String { dir.url.appendingPathComponent(store).path }

    func put(_ document: String, model: String = "tasks", _ lines: [String]) throws -> CLIResult {
        try dir.run(
            ["records", "put", "--store", store, "--doc", document, "--model", model, "--schema", schema],
            stdin: lines.joined(separator: "\n") + "\n")
    }

    /// `accord records <verb> --store --schema --model tasks <extra...>`.
    func run(_ verb: String, model: String = "tasks", _ extra: [String] = []) throws -> CLIResult {
        try dir.run(["records", verb, "--store", store, "--schema", schema, "--model", model] + extra)
    }

    /// Runs and requires success; returns stdout parsed as JSON.
    func json(_ verb: String, model: String = "tasks", _ extra: [String] = []) throws -> AnyValue {
        let result = try run(verb, model: model, extra)
        try #require(result.status == 0, "\(verb) \(extra): \(result.stderr)")
        return try AnyValue(jsonText: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The document's full state and log position as the store holds them (nil when
    /// the store has no such document), opened in this process after the CLI exited.
    func state(of document: String) throws -> (update: [UInt8], sequence: UInt64, entries: Int)? {
        let store = try DocumentStore(path: storePath)
        defer { try? store.close() }
        let id = try DocumentID(validating: document)
        guard try store.contains(id) else { return nil }
        let metadata = try store.metadata(id)
        return (try store.load(id).encodeStateAsUpdate(), metadata.lastSequence, metadata.logCount)
    }
}

extension AnyValue {
    subscript(key: String) -> AnyValue? { objectValue?[key] }
    /// The ids of the records in a query result's `data`.
    var recordIDs: [String] { (self["data"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } }
}
