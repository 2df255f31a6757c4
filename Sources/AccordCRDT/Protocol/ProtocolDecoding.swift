/// Shared decoding helpers for the y-protocols messages.
///
/// Protocol messages arrive from the network, so every failure inside them, whatever
/// primitive raised it (a varUint, a string, embedded JSON), is reported with the one
/// code callers match on: ``ErrorCode/malformedMessage``.
extension AccordError {
    /// The same failure, re-labelled as a malformed protocol message (details kept).
    package func asMalformedMessage() -> AccordError {
        code == .malformedMessage ? self : AccordError(.malformedMessage, message, details: details)
    }
}

extension ByteReader {
    /// A reader whose primitive failures already carry ``ErrorCode/malformedMessage``.
    static func message(_ bytes: [UInt8]) -> ByteReader {
        ByteReader(bytes, errorCode: .malformedMessage)
    }

    /// Throws unless every byte was consumed: a known message with extra bytes is either
    /// corrupt or a format we do not understand, and guessing would be worse than failing.
    func expectEnd(_ what: String) throws(AccordError) {
        guard isAtEnd else {
            throw AccordError(.malformedMessage, "\(remaining) trailing bytes after \(what)",
                              details: ["offset": String(position)])
        }
    }
}
