/// Why a document is not valid TOML, and where.
///
/// The message says what was expected or which rule was broken ("expected '=' after
/// key", "table [a] defined twice (first at line 3)"); ``position`` is where the parser
/// stood when it found out, usually the first byte that could not be accepted.
public struct TOMLError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public let position: TOMLPosition

    public init(_ message: String, at position: TOMLPosition) {
        self.message = message
        self.position = position
    }

    /// `line L, column C: message`.
    public var description: String { "line \(position.line), column \(position.column): \(message)" }
}
