import Foundation

/// Where the CLI writes: results to stdout, diagnostics to stderr (so stdout stays
/// parseable, e.g. `inspect --json`).
enum Output {
    static func print(_ text: String) {
        Swift.print(text)
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
