public import AccordCRDT

/// Why an ``AccordClient`` asks its token provider for a token.
public enum TokenRequestReason: Hashable, Sendable {
    /// A connection attempt (the first, or a reconnect after a lost connection).
    case connect
    /// The server refused the last token (`UNAUTHENTICATED`, e.g. it expired): fetch a
    /// fresh one. Each such refusal is also an ``AuthErrorEvent``.
    case unauthenticated(AccordError)
}

extension TokenRequestReason {
    /// The server's code for a refused token (spelled here: AccordSync does not depend
    /// on AccordServer; a golden test checks it is the server's).
    static let refusalCode = ErrorCode(rawValue: "UNAUTHENTICATED")
}
