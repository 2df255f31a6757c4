import AccordCRDT
import AccordRecords
import AccordStore

/// `accord records aggregate ... --options JSON [--documents a,b]`: `{"rows": [...]}`,
/// each row an object of group keys and results (see ``AggregateOptions``).
enum AggregateCommand {
    static let help = "accord records aggregate --help"

    static func run(_ args: Arguments) throws(AccordError) {
        var args = args
        let options = try RecordsOptions.parse(&args, help: help)
        let documents = try RecordsOptions.documents(&args, help: help)
        var aggregation = AggregateOptions()
        if let text = try args.removeOption("--options") {
            aggregation = try AggregateOptions(json: QueryArguments.json(text, path: "options"))
        }
        if let extra = try args.positionals().first {
            throw AccordCommand.usageError("unexpected argument '\(extra)' (the filter goes in --options)", help: help)
        }
        if documents != nil, aggregation.documents != nil {
            throw AccordCommand.usageError("documents given twice: in --options and with --documents", help: help)
        }
        let requested = documents ?? aggregation.documents
        let rows = try RecordsSession.with(options, create: false) { session throws(AccordError) -> [AggregateRow] in
            let scope = try session.documents(requested)
            try session.refresh(scope)
            var scoped = aggregation
            scoped.documents = scope
            return try session.index.aggregate(options.model.name, scoped)
        }
        Output.print(AnyValue.object(OrderedObject([("rows", .array(rows.map(aggregation.json)))])).jsonText)
    }
}
