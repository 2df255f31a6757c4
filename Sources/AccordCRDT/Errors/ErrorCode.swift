/// A stable, machine-readable error code.
///
/// The raw string is part of Accord's API: it travels in server error bodies, CLI
/// output and other SDKs, so a code is never renamed. New codes may be added at any
/// time, which is why this is a struct of constants and not a public enum (adding an
/// enum case would break every caller's exhaustive `switch`).
///
/// Catch by code with pattern matching:
/// ```swift
/// do { try doc.applyUpdate(bytes) }
/// catch ErrorCode.malformedUpdate { ... }
/// ```
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Update bytes that cannot be decoded: truncated, inconsistent lengths, unknown
    /// content, invalid UTF-8, nesting too deep, or counts larger than the input.
    public static let malformedUpdate = ErrorCode(rawValue: "MALFORMED_UPDATE")
    /// A sync or awareness protocol message that cannot be decoded.
    public static let malformedMessage = ErrorCode(rawValue: "MALFORMED_MESSAGE")
    /// JSON text that cannot be parsed (embeds, format values, awareness states).
    public static let malformedJSON = ErrorCode(rawValue: "MALFORMED_JSON")
    /// An index or length outside the bounds of a shared type.
    public static let indexOutOfBounds = ErrorCode(rawValue: "INDEX_OUT_OF_BOUNDS")
    /// A root type was requested with a kind different from the one it already has.
    public static let typeMismatch = ErrorCode(rawValue: "TYPE_MISMATCH")
    /// A shared type was used after it was deleted or before it was attached to a document.
    public static let invalidType = ErrorCode(rawValue: "INVALID_TYPE")
    /// A command-line or API argument that is not acceptable.
    public static let invalidArgument = ErrorCode(rawValue: "INVALID_ARGUMENT")
    /// A file could not be read or written (command line tools).
    public static let ioError = ErrorCode(rawValue: "IO_ERROR")
    /// A call that is not allowed in the current state, such as an undo while the
    /// document is in the middle of a transaction.
    public static let refused = ErrorCode(rawValue: "REFUSED")

    /// Every code defined by AccordCRDT, for golden tests and documentation.
    public static let allCRDTCodes: [ErrorCode] = [
        .malformedUpdate, .malformedMessage, .malformedJSON, .indexOutOfBounds,
        .typeMismatch, .invalidType, .invalidArgument, .ioError, .refused,
    ]

    /// Lets `catch ErrorCode.malformedUpdate` match an ``AccordError`` with that code.
    public static func ~= (code: ErrorCode, error: any Error) -> Bool {
        (error as? AccordError)?.code == code
    }

    /// The same match for typed throws (`throws(AccordError)`).
    public static func ~= (code: ErrorCode, error: AccordError) -> Bool {
        error.code == code
    }
}
