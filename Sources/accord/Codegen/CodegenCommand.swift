import AccordCodegen
import AccordCRDT
import Foundation

/// `accord codegen -i <schema> -o <dir> [--single-file <name>]`: typed Swift models from
/// a schema file. Everything is generated in memory first, so an invalid schema writes
/// nothing; then only bannered files in `<dir>` are rewritten or removed.
enum CodegenCommand {
    static let help = "accord codegen --help"

    static func run(_ args: inout Arguments) throws(AccordError) {
        let input = try args.removeOption("-i", "--input")
        let output = try args.removeOption("-o", "--output")
        let singleFile = try args.removeOption("--single-file")
        let quiet = args.removeFlag("--quiet", "-q")
        let extra = try args.positionals()
        guard extra.isEmpty else { throw AccordCommand.usageError("unexpected argument '\(extra[0])'", help: help) }
        guard let input else { throw AccordCommand.usageError("-i <schema file> is required", help: help) }
        guard let output else { throw AccordCommand.usageError("-o <folder> is required", help: help) }
        if let singleFile, !singleFile.hasSuffix(".swift") || singleFile.contains("/") {
            throw AccordCommand.usageError("--single-file takes a file name ending in .swift", help: help)
        }

        let models = try SchemaLoader.loadSchema(path: input)
        let generator = SwiftModelGenerator(sourceName: URL(fileURLWithPath: input).lastPathComponent)
        let files: [GeneratedFile]
        if let singleFile {
            files = [try generator.singleFile(named: singleFile, for: models)]
        } else {
            files = try generator.files(for: models)
        }
        let changes = try GeneratedFolder(path: output).write(files)
        if !quiet {
            Output.print(
                "accord codegen: \(models.count) model(s) from \(input) into \(output): "
                    + "\(changes.written.count) written, \(changes.unchanged.count) unchanged, \(changes.removed.count) removed")
        }
    }
}
