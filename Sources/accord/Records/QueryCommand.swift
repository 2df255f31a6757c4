import AccordCRDT
import AccordRecords
import AccordStore

/// `accord records query ... [FILTER_JSON] [--sort f:1,g:-1] [--limit N] [--cursor C]
/// [--documents a,b]`: one page of records as `{"data", "nextCursor", "hasMore"}`.
enum QueryCommand {
    static let help = "accord records query --help"

    static func run(_ args: Arguments) throws(AccordError) {
        var args = args
        let options = try RecordsOptions.parse(&args, help: help)
        let documents = try RecordsOptions.documents(&args, help: help)
        let sort = try args.removeOption("--sort").map(QueryArguments.sortOrder) ?? []
        let limit = try args.removeOption("--limit").map { text throws(AccordError) in
            try QueryArguments.limit(text, help: help)
        }
        let cursor = try args.removeOption("--cursor")
        let filter = try QueryArguments.filter(try args.positionals(), help: help)
        let page = try RecordsSession.with(options, create: false) { session throws(AccordError) -> QueryPage in
            let scope = try session.documents(documents)
            try session.refresh(scope)
            return try session.index.queryPaged(
                options.model.name, filter: filter,
                options: QueryOptions(documents: scope, sortOrder: sort, limit: limit, cursor: cursor))
        }
        Output.print(page.json(model: options.model).jsonText)
    }
}

/// `accord records count ... [FILTER_JSON] [--documents a,b]`: `{"count": N}`.
enum CountCommand {
    static let help = "accord records count --help"

    static func run(_ args: Arguments) throws(AccordError) {
        var args = args
        let options = try RecordsOptions.parse(&args, help: help)
        let documents = try RecordsOptions.documents(&args, help: help)
        let filter = try QueryArguments.filter(try args.positionals(), help: help)
        let count = try RecordsSession.with(options, create: false) { session throws(AccordError) -> Int in
            let scope = try session.documents(documents)
            try session.refresh(scope)
            return try session.index.count(options.model.name, filter: filter, documents: scope)
        }
        Output.print(AnyValue.object(OrderedObject([("count", .int(Int64(count)))])).jsonText)
    }
}
