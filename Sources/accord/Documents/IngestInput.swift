import AccordCRDT
import AccordRecords
import AccordServer
import Foundation

/// The files of `accord documents ingest --input DIR`: one `<model>.ndjson` per model
/// (or `<model>.ndjson.gz`, gzip), every line checked against the document's models
/// (``IngestLine``) before anything is sent, then cut into chunks at line boundaries.
struct IngestInput {
    struct Chunk {
        var model: String
        var bytes: [UInt8]
    }

    /// Bytes per uploaded chunk (the server's request body limit is 16 MiB).
    static let chunkBytes = 4 << 20

    var chunks: [Chunk] = []
    var records = 0
    var files: [String] = []

    /// Reads and checks every file of `directory`.
    /// - Throws: `IO_ERROR` for a missing directory or unreadable file, `INVALID_ARGUMENT`
    ///   for a file that names no model of the document, and the line's own error
    ///   (`VALIDATION_FAILED`, `RESERVED_FIELD_NAME`, `MALFORMED_JSON`) with the file and
    ///   line in the message and `details["file"]`, `details["line"]`.
    init(directory: String, models: [ModelSchema]) throws(AccordError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw AccordError(.ioError, "cannot read the input directory \(directory)", details: ["path": directory])
        }
        for name in names where name.hasSuffix(".ndjson") || name.hasSuffix(".ndjson.gz") {
            let modelName = String(name.dropLast(name.hasSuffix(".gz") ? ".ndjson.gz".count : ".ndjson".count))
            guard let model = models.first(where: { $0.name == modelName }) else {
                throw AccordError(
                    .invalidArgument, "\(name): the document has no model \"\(modelName)\"",
                    details: ["file": name, "model": modelName])
            }
            try add(file: directory + "/" + name, name: name, model: model)
            files.append(name)
        }
        guard !files.isEmpty else {
            throw AccordError(.invalidArgument, "\(directory) holds no <model>.ndjson file", details: ["path": directory])
        }
    }

    private mutating func add(file path: String, name: String, model: ModelSchema) throws(AccordError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AccordError(.ioError, "cannot read \(path)", details: ["path": path])
        }
        let bytes = name.hasSuffix(".gz") ? try Gunzip.decompress([UInt8](data), name: name) : [UInt8](data)
        var chunk: [UInt8] = []
        var number = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            let text = Substring(decoding: line, as: UTF8.self)
            do throws(AccordError) {
                try IngestLine.validate(text, model: model)
            } catch {
                var details = error.details
                details["file"] = name
                details["line"] = String(number)
                throw AccordError(error.code, "\(name) line \(number): \(error.message)", details: details)
            }
            if text.contains(where: { !$0.isWhitespace }) { records += 1 }
            if chunk.count + line.count + 1 > Self.chunkBytes, !chunk.isEmpty {
                chunks.append(Chunk(model: model.name, bytes: chunk))
                chunk = []
            }
            chunk.append(contentsOf: line)
            chunk.append(UInt8(ascii: "\n"))
        }
        if !chunk.isEmpty { chunks.append(Chunk(model: model.name, bytes: chunk)) }
    }
}
