public import AccordCRDT
import Foundation

/// An email address as invitations and tokens use it: trimmed and lower-cased, so
/// `" Bob@Example.COM "` and `"bob@example.com"` are one invitee.
///
/// The check is deliberately plain, not RFC 5322: `local@domain`, one `@`, at most 64
/// bytes before it and 254 in all, a domain of dot-separated labels (letters, digits,
/// `-`), and no spaces, control characters, quotes or brackets anywhere. An address a
/// mailer would need quoting for is refused rather than guessed at.
public struct EmailAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String

    static let maxBytes = 254
    static let maxLocalBytes = 64

    /// - Throws: `INVALID_EMAIL` (REST 400) saying what is wrong, with `details.field`.
    public init(validating text: String, field: String = "email") throws(AccordError) {
        let normalized = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if let problem = Self.problem(normalized) {
            throw AccordError(.invalidEmail, "\(problem): \(Self.quoted(text))", details: ["field": field])
        }
        rawValue = normalized
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(validating: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Why `text` (already normalized) is no address we accept, or nil.
    static func problem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maxBytes else { return "an email address has 3 to \(maxBytes) bytes" }
        let ats = bytes.indices.filter { bytes[$0] == UInt8(ascii: "@") }
        guard ats.count == 1, let at = ats.first else { return "an email address has exactly one @" }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        guard !local.isEmpty, local.count <= maxLocalBytes else {
            return "the part before @ has 1 to \(maxLocalBytes) bytes"
        }
        let forbidden = Set(" \t\"'(),:;<>[]\\`".utf8)
        guard !local.contains(where: { $0 < 0x21 || $0 == 0x7F || forbidden.contains($0) }),
            local.first != UInt8(ascii: "."), local.last != UInt8(ascii: ".")
        else { return "the part before @ has a character an address may not hold" }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return "the domain needs a dot (name.tld)" }
        for label in labels {
            guard !label.isEmpty, label.count <= 63, label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                label.allSatisfy({ isDomainByte($0) })
            else { return "the domain is not a host name" }
        }
        return nil
    }

    /// ASCII letters, digits and `-`, or any byte of a non-ASCII (internationalized) label.
    private static func isDomainByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-") || byte >= 0x80
    }

    /// The input, cut short, for the message (an attacker's megabyte is not echoed).
    private static func quoted(_ text: String) -> String {
        let head = String(decoding: text.utf8.prefix(80), as: UTF8.self)
        return "\"" + head + (text.utf8.count > 80 ? "…\"" : "\"")
    }
}
