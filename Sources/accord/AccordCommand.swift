import AccordCRDT
import AccordRecords

/// The `accord` command: reads the verb, runs it, and turns any ``AccordError`` into an
/// `error: CODE: message` line on stderr and the exit status ``ExitStatus`` maps it to.
enum AccordCommand {
    static func run(_ argv: [String]) -> Int32 {
        do throws(AccordError) {
            try dispatch(argv)
            return ExitStatus.success
        } catch {
            Output.error("error: \(error)")
            return ExitStatus.forError(error)
        }
    }

    static func dispatch(_ argv: [String]) throws(AccordError) {
        var args = Arguments(argv)
        let help = args.removeFlag("--help", "-h")
        if args.removeFlag("--version") {
            Output.print(Usage.version)
            return
        }
        switch args.popFirst() {
        case nil:
            guard help else { throw usageError("missing command") }
            Output.print(Usage.main)
        case "help":
            Output.print(Usage.main)
        case "yjs":
            try YjsCommand.run(&args, help: help)
        case "serve":
            guard !help else { return Output.print(Usage.serve) }
            try ServeCommand.run(args)
        case "token":
            try TokenCommand.run(&args, help: help)
        case "records":
            try RecordsCommand.run(&args, help: help)
        case "documents":
            try DocumentsCommand.run(&args, help: help)
        case "codegen":
            guard !help else { return Output.print(Usage.codegen) }
            try CodegenCommand.run(&args)
        case "toml":
            try TOMLCommand.run(&args, help: help)
        case let verb?:
            throw usageError("unknown command '\(verb)'")
        }
    }

    /// A usage error that points at the help.
    static func usageError(_ message: String, help: String = "accord --help") -> AccordError {
        AccordError(.invalidArgument, "\(message) (see '\(help)')")
    }
}
