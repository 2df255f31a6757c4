import AccordCRDT
import AccordRecords
import AccordStore
import Foundation

/// `accord records put --store FILE --doc ID --model NAME --schema FILE`: records as
/// ndjson on stdin, written into one document in one transaction.
///
/// The batch is applied to the document loaded into a detached `Doc` first and appended
/// to the store only when every record was accepted: a refused batch leaves the store
/// as it was (not even a new empty document), which is what a script that retries
/// needs.
enum PutCommand {
    static let help = "accord records put --help"

    static func run(_ args: Arguments) throws(AccordError) {
        var args = args
        let options = try RecordsOptions.parse(&args, help: help)
        guard let documentText = try args.removeOption("--doc") else {
            throw AccordCommand.usageError("put needs the document: --doc <id>", help: help)
        }
        if let extra = try args.positionals().first {
            throw AccordCommand.usageError("unexpected argument '\(extra)'", help: help)
        }
        let document: DocumentID
        do throws(AccordError) {
            document = try DocumentID(validating: documentText)
        } catch {
            throw AccordCommand.usageError("--doc: \(error.message)", help: help)
        }
        // Read and parse every record before the store is touched.
        let input = RecordLines(FileHandle.standardInput.readDataToEndOfFile())
        let writes = try input.writes()
        let ids = try RecordsSession.with(options, create: true) { session throws(AccordError) in
            try write(writes, lines: input, into: document, session)
        }
        Output.print(AnyValue.object(OrderedObject([
            ("written", .int(Int64(ids.count))), ("ids", .array(ids.map { .string($0) })),
        ])).jsonText)
    }

    private static func write(
        _ writes: [RecordWrite], lines: RecordLines, into document: DocumentID, _ session: RecordsSession
    ) throws(AccordError) -> [String] {
        let store = session.store
        // Unique fields are checked against every record the index holds: bring every
        // document up to date first, as an app's index is for its open documents.
        try session.refresh(session.documents(nil))
        let exists = try store.contains(document)
        let doc = exists ? try store.load(document) : Doc()
        var updates: [[UInt8]] = []
        let subscription = doc.onUpdate { update, _ in updates.append(update) }
        defer { subscription.cancel() }
        // The clock and randomness for ULIDs are read here, at the edge.
        var random = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        let ids: [String]
        do throws(AccordError) {
            ids = try RecordBatchWrite(schema: session.options.model, index: session.index, document: document)
                .apply(writes, to: doc, milliseconds: milliseconds, random: &random)
        } catch {
            throw lines.attributed(error)
        }
        if !exists { try store.create(document) }
        for update in updates { try store.append(update, to: document) }
        try store.flush()
        // Only the written records changed: project them, and record the new position.
        try session.index.project(
            document, doc: doc, changes: [session.options.model.name: Set(ids)], sequence: try store.metadata(document).lastSequence)
        return ids
    }
}
