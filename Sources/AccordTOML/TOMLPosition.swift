/// A place in a TOML document: 1-based line, and 1-based column counted in Unicode
/// scalars (not bytes), so editors that count characters point at the same spot.
public struct TOMLPosition: Sendable, Hashable, CustomStringConvertible {
    public let line: Int
    public let column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column)" }
}
