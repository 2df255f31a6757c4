import AccordCRDT
import AccordTOML
import Foundation

extension ErrorCode {
    /// The input is not valid TOML 1.0; the message starts with `line L, column C:`.
    static let malformedTOML = ErrorCode(rawValue: "MALFORMED_TOML")
}

/// `accord toml decode|encode`: TOML to the toml-test tagged JSON and back, on stdin
/// and stdout, so the parser can be checked by any TOML conformance harness.
enum TOMLCommand {
    static func run(_ args: inout Arguments, help: Bool) throws(AccordError) {
        let verb = args.popFirst()
        if help {
            Output.print(Usage.toml)
            return
        }
        switch verb {
        case nil:
            throw AccordCommand.usageError("missing toml command (decode or encode)", help: "accord toml --help")
        case "decode":
            guard try args.positionals().isEmpty else { throw AccordCommand.usageError("toml decode reads stdin and takes no arguments", help: "accord toml --help") }
            let input = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
            let table: TOMLTable
            do {
                table = try TOML.parse(input)
            } catch {
                throw AccordError(.malformedTOML, "stdin: \(error)", details: ["input": "stdin", "line": String(error.position.line), "column": String(error.position.column)])
            }
            var out = ""
            TOMLTaggedJSON.json(table).write(to: &out)
            Output.print(out)
        case "encode":
            guard try args.positionals().isEmpty else { throw AccordCommand.usageError("toml encode reads stdin and takes no arguments", help: "accord toml --help") }
            let input = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
            let table = try TOMLTaggedJSON.table(try JSONValue.parse(input))
            FileHandle.standardOutput.write(Data(TOML.encode(table).utf8))
        case let other?:
            throw AccordCommand.usageError("unknown toml command '\(other)'", help: "accord toml --help")
        }
    }
}
