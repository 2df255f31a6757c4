import AccordCodegen
import AccordCRDT
import AccordRecords
import Foundation

/// `accord-bench codegen [--models N] [--samples N]`: the time `accord codegen` spends
/// on a large schema: parsing its JSON, validating it, generating every model's Swift
/// and writing the folder (fresh each sample, so every file is written); then
/// generation alone (`_generate_only`), to tell it from file I/O. The schema has
/// every field type, options, a unique field, a named constraint and all three
/// relationship kinds per model. Target: under 1 s for 200 models.
struct CodegenBenchmark {
    var models = 200
    var samples = 5

    static func parse(_ args: [String]) throws -> CodegenBenchmark {
        var bench = CodegenBenchmark()
        var words = args[...]
        while let arg = words.popFirst() {
            guard let value = words.popFirst(), let number = Int(value), number > 0 else {
                throw BenchFailure.usage("\(arg) needs a positive number")
            }
            switch arg {
            case "--models": bench.models = number
            case "--samples": bench.samples = number
            default: throw BenchFailure.usage("unknown codegen option '\(arg)'")
            }
        }
        return bench
    }

    func run() throws {
        let json = Self.schemaJSON(models: models)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("accord-bench-codegen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var run = 0
        let (timing, files) = try Timing.measure(samples: samples) { () throws -> Int in
            run += 1
            let schemas = try ModelSchema.models(json: AnyValue(jsonText: json))
            let files = try SwiftModelGenerator(sourceName: "models.json").files(for: schemas)
            try GeneratedFolder(path: root.appendingPathComponent("run\(run)").path).write(files)
            return files.count
        }
        var record = BenchRecord(name: "codegen_\(models)_models", trace: "synthetic", timing: timing)
        record["files"] = .int(Int64(files))
        record["schema_bytes"] = .int(Int64(json.utf8.count))
        record.emit()
        // The same without the folder, to tell generation from file I/O.
        let schemas = try ModelSchema.models(json: AnyValue(jsonText: json))
        let (generating, bytes) = try Timing.measure(samples: samples) { () throws -> Int in
            try SwiftModelGenerator(sourceName: "models.json").files(for: schemas).reduce(0) { $0 + $1.contents.utf8.count }
        }
        var generation = BenchRecord(name: "codegen_\(models)_models_generate_only", trace: "synthetic", timing: generating)
        generation["output_bytes"] = .int(Int64(bytes))
        generation.emit()
    }

    /// `{"models": [...]}` with `count` models `m0_items`, `m1_items`, ... each
    /// referring to the one before it, having many of the one after it, and reaching
    /// tags through a join model.
    static func schemaJSON(models count: Int) -> String {
        var models: [String] = []
        for index in 0..<count {
            let name = "m\(index)_items"
            var relationships = [#"{"name": "tags", "model": "tags", "kind": "hasManyThrough", "joinModel": "item_tags", "localField": "itemId", "relatedField": "tagId", "orderBy": {"field": "position"}}"#]
            if index > 0 {
                relationships.append(#"{"name": "parent", "model": "m\#(index - 1)_items", "kind": "refersTo", "field": "parentId"}"#)
            }
            if index + 1 < count {
                relationships.append(#"{"name": "children", "model": "m\#(index + 1)_items", "kind": "hasMany", "foreignField": "parentId", "orderBy": {"field": "rank", "direction": -1}}"#)
            }
            models.append(#"""
                {"name": "\#(name)", "fields": [
                  {"name": "id", "type": "id", "autoAssign": true}, {"name": "title", "type": "string", "indexed": true},
                  {"name": "rank", "type": "number", "default": 1}, {"name": "done", "type": "boolean", "default": false},
                  {"name": "due", "type": "date"}, {"name": "labels", "type": "stringset", "maxCount": 16},
                  {"name": "slug", "type": "string", "unique": true}, {"name": "parentId", "type": "id", "indexed": true},
                  {"name": "owner", "type": "string"}, {"name": "notes", "type": "string", "default": "none"}],
                 "uniqueConstraints": [{"name": "title_owner", "fields": ["title", "owner"]}],
                 "relationships": [\#(relationships.joined(separator: ", "))]}
                """#)
        }
        models.append(#"{"name": "tags", "fields": [{"name": "name", "type": "string", "unique": true}]}"#)
        models.append(#"{"name": "item_tags", "fields": [{"name": "id", "type": "id", "autoAssign": true}, {"name": "itemId", "type": "id"}, {"name": "tagId", "type": "id"}, {"name": "position", "type": "number"}]}"#)
        return #"{"models": [\#(models.joined(separator: ",\n"))]}"#
    }
}
