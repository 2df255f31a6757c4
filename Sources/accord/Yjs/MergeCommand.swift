import AccordCRDT

/// `accord yjs merge <update>... -o <file>`.
///
/// Goes through a real ``Doc`` rather than ``mergeUpdates(_:)``: the output is then what
/// a replica that received these updates would hold and send (deleted content
/// collected, structs joined), and it shows that the engine accepts every input.
enum MergeCommand {
    static func run(_ args: Arguments) throws(AccordError) {
        var args = args
        let output = try args.removeOption("-o", "--output")
        let inputs = try args.positionals()
        guard let output else {
            throw AccordCommand.usageError("merge needs an output file: -o <file>", help: "accord yjs --help")
        }
        guard !inputs.isEmpty else {
            throw AccordCommand.usageError("merge needs at least one update file", help: "accord yjs --help")
        }
        // Read everything first: a missing file fails before any work is done.
        var updates: [(path: String, bytes: [UInt8])] = []
        for path in inputs { updates.append((path, try Files.read(path))) }

        let doc = Doc()
        for (path, bytes) in updates {
            do throws(AccordError) {
                try doc.applyUpdate(bytes)
            } catch {
                throw Files.attributed(error, to: path)
            }
        }
        try Files.write(doc.encodeStateAsUpdate(), to: output)
    }
}
