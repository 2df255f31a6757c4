import AccordCRDT

/// `accord records <put|query|count|aggregate>`: typed records in a client store, for
/// scripts and checks. Every verb opens the store and its records index itself
/// (`<store>.records`), so it sees every document of the store, not only open ones.
enum RecordsCommand {
    static let help = "accord records --help"

    static func run(_ args: inout Arguments, help: Bool) throws(AccordError) {
        let verb = args.popFirst()
        if help {
            switch verb {
            case "put": Output.print(Usage.recordsPut)
            case "query": Output.print(Usage.recordsQuery)
            case "count": Output.print(Usage.recordsCount)
            case "aggregate": Output.print(Usage.recordsAggregate)
            default: Output.print(Usage.records)
            }
            return
        }
        switch verb {
        case nil:
            throw AccordCommand.usageError("missing records command (put, query, count or aggregate)", help: Self.help)
        case "put":
            try PutCommand.run(args)
        case "query":
            try QueryCommand.run(args)
        case "count":
            try CountCommand.run(args)
        case "aggregate":
            try AggregateCommand.run(args)
        case let other?:
            throw AccordCommand.usageError("unknown records command '\(other)'", help: Self.help)
        }
    }
}
