import AccordCRDT

/// `accord yjs <merge|inspect>`: tools for Yjs update v1 files.
enum YjsCommand {
    static func run(_ args: inout Arguments, help: Bool) throws(AccordError) {
        let verb = args.popFirst()
        if help {
            Output.print(Usage.yjs)
            return
        }
        switch verb {
        case nil:
            throw AccordCommand.usageError("missing yjs command (merge or inspect)", help: "accord yjs --help")
        case "merge":
            try MergeCommand.run(args)
        case "inspect":
            try InspectCommand.run(args)
        case let other?:
            throw AccordCommand.usageError("unknown yjs command '\(other)'", help: "accord yjs --help")
        }
    }
}
