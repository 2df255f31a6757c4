import AccordCRDT
import Foundation

/// `accord documents ingest|ingests get|export|export-all|import`: operator tools
/// against a running server.
/// Errors exit as the ingest contract says (``IngestCommand``): 1 failed or refused,
/// 124 timed out, 130 interrupted, 2 usage.
enum DocumentsCommand {
    static func run(_ args: inout Arguments, help: Bool) throws(AccordError) {
        switch args.popFirst() {
        case nil:
            guard help else { throw AccordCommand.usageError("missing verb", help: "accord documents --help") }
            Output.print(Usage.documents)
        case "ingest":
            guard !help else { return Output.print(Usage.documents) }
            exit(IngestCommand.run(&args))
        case "ingests":
            guard !help else { return Output.print(Usage.documents) }
            guard args.popFirst() == "get" else {
                throw AccordCommand.usageError("expected 'ingests get'", help: "accord documents --help")
            }
            let connection = try serverOptions(&args)
            let positionals = try args.positionals()
            guard positionals.count == 2 else {
                throw AccordCommand.usageError("expected <document-id> <session-id>", help: "accord documents --help")
            }
            let session = try connection.call(
                "GET", ServerConnection.documentPath(positionals[0]) + "/records/$ingests/" + positionals[1])
            Output.print(session.jsonText)
        case "export":
            guard !help else { return Output.print(Usage.documents) }
            try ExportImportCommand.export(&args)
        case "export-all":
            guard !help else { return Output.print(Usage.documents) }
            try ExportImportCommand.exportAll(&args)
        case "import":
            guard !help else { return Output.print(Usage.documents) }
            try ExportImportCommand.importBundle(&args)
        case let verb?:
            throw AccordCommand.usageError("unknown verb '\(verb)'", help: "accord documents --help")
        }
    }

    /// `--server URL --token T` (the token may also come from `ACCORD_TOKEN`).
    static func serverOptions(_ args: inout Arguments) throws(AccordError) -> ServerConnection {
        guard let server = try args.removeOption("--server") else {
            throw AccordCommand.usageError("--server is required", help: "accord documents --help")
        }
        guard let token = try args.removeOption("--token") ?? ProcessInfo.processInfo.environment["ACCORD_TOKEN"] else {
            throw AccordCommand.usageError("--token is required (or ACCORD_TOKEN)", help: "accord documents --help")
        }
        return try ServerConnection(server: server, token: token)
    }
}
