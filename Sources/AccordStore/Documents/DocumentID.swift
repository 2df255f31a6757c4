public import AccordCRDT

/// The name of a document in a store: 1 to 256 bytes of UTF-8, without control
/// characters, made of `/`-separated segments none of which is empty, `.` or `..`, so it
/// is safe in file names, URL paths after escaping (no normalisation changes it), and
/// log output. The server, the wire codecs and the client share this one rule.
///
/// Ids stored before the segment rule (`a//b`, `x/../y`) stay readable: the store lists
/// and loads them through ``init(stored:)``, but they cannot be built from input, so no
/// route or client can open them by name.
public struct DocumentID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible, Codable,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Returns nil for an empty, over-long or control-character id; use
    /// ``init(validating:)`` for an error that says why.
    public init?(rawValue: String) {
        guard (try? Self.validate(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    public init(validating rawValue: String) throws(AccordError) {
        try Self.validate(rawValue)
        self.rawValue = rawValue
    }

    /// An id read back from storage: only the rule ids always had (1 to 256 bytes, no
    /// control characters), so documents stored before the segment rule stay readable.
    package init(stored rawValue: String) throws(AccordError) {
        try WireDocumentID.validateName(rawValue, kind: "document id")
        self.rawValue = rawValue
    }

    /// A literal id in code: `"notes"`. An invalid literal is a programming error and
    /// stops the program; ids from input go through ``init(validating:)``.
    public init(stringLiteral value: String) {
        do {
            try Self.validate(value)
        } catch {
            preconditionFailure("invalid DocumentID literal: \(error.message)")
        }
        self.rawValue = value
    }

    public var description: String { rawValue }

    // Byte for byte, as storage compares keys: String equality would make canonically
    // equivalent ids ("\u{E9}" and "e\u{301}") one document.
    public static func == (a: DocumentID, b: DocumentID) -> Bool { ExactName.equal(a.rawValue, b.rawValue) }

    public func hash(into hasher: inout Hasher) { ExactName.hash(rawValue, into: &hasher) }

    public static func < (a: DocumentID, b: DocumentID) -> Bool {
        a.rawValue.utf8.lexicographicallyPrecedes(b.rawValue.utf8)
    }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        try self.init(validating: raw)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    private static func validate(_ raw: String) throws(AccordError) {
        try WireDocumentID.validate(raw)
    }
}
