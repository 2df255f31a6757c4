import AccordCRDT

/// `accord yjs inspect <update> [--json]`.
enum InspectCommand {
    static func run(_ args: Arguments) throws(AccordError) {
        var args = args
        let json = args.removeFlag("--json")
        let files = try args.positionals()
        guard files.count == 1, let path = files.first else {
            throw AccordCommand.usageError("inspect takes exactly one update file", help: "accord yjs --help")
        }
        let bytes = try Files.read(path)
        let report: UpdateReport
        do throws(AccordError) {
            report = try UpdateReport(bytes)
        } catch {
            throw Files.attributed(error, to: path)
        }
        Output.print(json ? report.json.jsonText : report.text)
    }
}
