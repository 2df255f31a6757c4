import AccordCRDT
import Foundation

/// `accord documents export | export-all | import` against a running server, with an
/// admin token (`accord serve --admins`). See ``Bundle`` for the layout.
enum ExportImportCommand {
    static let help = "accord documents --help"

    /// `export <document-id> --output DIR`.
    static func export(_ args: inout Arguments) throws(AccordError) {
        let output = try requiredOutput(&args)
        let connection = try DocumentsCommand.serverOptions(&args)
        let positionals = try args.positionals()
        guard positionals.count == 1 else { throw AccordCommand.usageError("expected one <document-id>", help: help) }
        try exportDocument(positionals[0], to: output, connection)
        Output.print(AnyValue.object(OrderedObject([("documents", .array([.string(positionals[0])]))])).jsonText)
    }

    /// `export-all [--user-id U] --output DIR`: every document (or U's) plus manifest.json.
    static func exportAll(_ args: inout Arguments) throws(AccordError) {
        let output = try requiredOutput(&args)
        let user = try args.removeOption("--user-id")
        let connection = try DocumentsCommand.serverOptions(&args)
        guard try args.positionals().isEmpty else { throw AccordCommand.usageError("export-all takes no arguments", help: help) }
        let query = user.map { "?user=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
        let listed = try connection.call("GET", "/v1/admin/documents" + query)
        guard case .object(let fields) = listed, case .array(let entries)? = fields["documents"] else {
            throw AccordError(.ioError, "the server's document list has no documents")
        }
        let ids = entries.compactMap { value -> String? in if case .string(let id) = value { id } else { nil } }
        Output.error("exporting \(ids.count) documents")
        try Parallel.forEach(ids) { id throws(AccordError) in try exportDocument(id, to: output, connection) }
        let manifest = AnyValue.object(OrderedObject([
            ("version", .int(Int64(Bundle.version))),
            ("exportedAt", .string(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date()))),
            ("documentCount", .int(Int64(ids.count))), ("documents", .array(ids.map { .string($0) })),
        ]))
        try Bundle.write(Array(manifest.jsonText.utf8), to: output + "/manifest.json")
        Output.print(AnyValue.object(OrderedObject([("documents", .array(ids.map { .string($0) }))])).jsonText)
    }

    private static func exportDocument(_ id: String, to output: String, _ connection: ServerConnection) throws(AccordError) {
        let path = "/v1/admin/documents/" + (ServerConnection.documentPath(id).dropFirst("/v1/documents/".count)) + "/export"
        let exported = try connection.call("GET", path)
        guard case .object(let fields) = exported, let metadata = fields["metadata"], let permissions = fields["permissions"],
              case .string(let encoded)? = fields["update"], let update = Data(base64Encoded: encoded)
        else {
            throw AccordError(.ioError, "the server's export of \(id) is incomplete")
        }
        let directory = output + "/documents/" + Bundle.directoryName(id)
        try Bundle.write(Array(metadata.jsonText.utf8), to: directory + "/metadata.json")
        try Bundle.write(Array(permissions.jsonText.utf8), to: directory + "/permissions.json")
        try Bundle.write([UInt8](update), to: directory + "/document.yjs")
        if let schema = fields["recordsSchema"] {
            try Bundle.write(Array(schema.jsonText.utf8), to: directory + "/records-schema.json")
        }
        try exportBlobs(id, to: directory + "/blobs", connection)
    }

    /// The document's blobs, streamed to `blobs/<sha256 hex>.bin`, and `blobs/index.json`.
    /// Each file is checked against its hash before it is listed.
    private static func exportBlobs(_ id: String, to directory: String, _ connection: ServerConnection) throws(AccordError) {
        var index: [AnyValue] = []
        for blob in try connection.blobList(id) {
            let file = directory + "/\(blob.hash).bin"
            try connection.downloadBlob(id, blob.hash, to: file)
            let digest = try Bundle.sha256(file: file)
            guard HexText.encode(digest) == blob.hash else {
                throw AccordError(.ioError, "blob \(blob.hash) of \(id) arrived with other bytes", details: ["document": id])
            }
            index.append(.object(OrderedObject([
                ("blobId", .string(blob.hash)), ("filename", .string(blob.hash + ".bin")),
                ("contentType", .string(blob.contentType)), ("sha256", .string(Data(digest).base64EncodedString())),
                ("numBytes", .int(blob.size)),
            ])))
        }
        try Bundle.write(Array(AnyValue.array(index).jsonText.utf8), to: directory + "/index.json")
    }

    /// `import DIR [--owner USER] [--overwrite] [--aliases skip|overwrite]`: checks the
    /// whole bundle first (nothing is imported when any part fails), then imports each
    /// document, preserving ids; an existing one is merged with `--overwrite`, else
    /// skipped and named.
    static func importBundle(_ args: inout Arguments) throws(AccordError) {
        let owner = try args.removeOption("--owner")
        let overwrite = args.removeFlag("--overwrite")
        let aliases = try args.removeOption("--aliases") ?? "skip"
        guard aliases == "skip" || aliases == "overwrite" else {
            throw AccordCommand.usageError("--aliases is skip or overwrite", help: help)
        }
        let connection = try DocumentsCommand.serverOptions(&args)
        let positionals = try args.positionals()
        guard positionals.count == 1 else { throw AccordCommand.usageError("expected one bundle directory", help: help) }
        let documents = try Bundle.read(positionals[0])
        if aliases == "overwrite", let withAliases = documents.first(where: { !$0.aliases.isEmpty }) {
            throw AccordError(.invalidArgument, "\(withAliases.id) carries aliases, which this server cannot restore yet; use --aliases skip",
                              details: ["document": withAliases.id])
        }
        let outcomes = try Parallel.map(documents) { document throws(AccordError) -> Outcome in
            try importDocument(document, owner: owner, overwrite: overwrite, connection)
        }
        var imported: [AnyValue] = [], merged: [AnyValue] = [], skipped: [AnyValue] = []
        for (document, outcome) in zip(documents, outcomes) {
            switch outcome {
            case .imported: imported.append(.string(document.id))
            case .merged: merged.append(.string(document.id))
            case .skipped: skipped.append(.string(document.id))
            }
        }
        Output.print(AnyValue.object(OrderedObject([
            ("imported", .array(imported)), ("merged", .array(merged)), ("skipped", .array(skipped)),
        ])).jsonText)
    }

    enum Outcome: Sendable { case imported, merged, skipped }

    private static func importDocument(
        _ document: Bundle.Document, owner: String?, overwrite: Bool, _ connection: ServerConnection
    ) throws(AccordError) -> Outcome {
        // Read again now (checked when the bundle was read): one document's state in memory per import running.
        let update = try Bundle.bytes(document.updatePath, document: document.id)
        var body: [(String, AnyValue)] = [
            ("metadata", document.metadata), ("update", .string(Data(update).base64EncodedString())),
            ("overwrite", .bool(overwrite)),
        ]
        if let owner { body.append(("owner", .string(owner))) }
        if let schema = document.recordsSchema { body.append(("recordsSchema", schema)) }
        let path = "/v1/admin/documents/" + (ServerConnection.documentPath(document.id).dropFirst("/v1/documents/".count)) + "/import"
        do throws(AccordError) {
            let result = try connection.call("POST", path, body: Array(AnyValue.object(OrderedObject(body)).jsonText.utf8))
            // The blobs after the document, which they belong to (content already on
            // the server is only referenced).
            for blob in document.blobs {
                try connection.uploadBlob(document.id, blob.hash, from: blob.path, contentType: blob.contentType)
            }
            if case .object(let fields) = result, fields["merged"] == .bool(true) { return .merged }
            return .imported
        } catch where error.code == .documentExists {
            Output.error("skipped \(document.id): it exists (pass --overwrite to merge into it)")
            return .skipped
        }
    }

    private static func requiredOutput(_ args: inout Arguments) throws(AccordError) -> String {
        guard let output = try args.removeOption("--output", "-o") else { throw AccordCommand.usageError("--output is required", help: help) }
        return output
    }
}
