/// Lines of Swift source with the indentation of hand-written code (four spaces),
/// joined with `\n` and ending in one newline, so output is the same on every OS.
struct SourceText {
    private(set) var lines: [String] = []
    private var depth = 0

    /// Appends `line` at the current depth (an empty line stays empty, no spaces).
    mutating func line(_ line: String = "") {
        lines.append(line.isEmpty ? "" : String(repeating: "    ", count: depth) + line)
    }

    /// `opening`, then `body` one level in, then `closing`.
    mutating func block(_ opening: String, closing: String = "}", _ body: (inout SourceText) -> Void) {
        line(opening)
        depth += 1
        body(&self)
        depth -= 1
        line(closing)
    }

    var text: String { lines.joined(separator: "\n") + "\n" }
}
