public import AccordCRDT

/// The server error codes that refuse a document's join: this connection will get
/// nothing of the document, so an `open` waiting for its state fails with the code.
/// Spelled by their wire strings like ``WriteRefusal`` (a test compares them with the
/// server's constants). Other coded errors about a document (a rate limit, a refused
/// awareness entry) leave the join, and a waiting `open`, alone.
public enum JoinRefusal {
    public static let codes: Set<ErrorCode> = [
        ErrorCode(rawValue: "DOC_ACCESS_DENIED"), ErrorCode(rawValue: "DOCUMENT_NOT_FOUND"),
        ErrorCode(rawValue: "DOCUMENT_UNAVAILABLE"),
    ]

    public static func refusesJoin(_ error: AccordError) -> Bool { codes.contains(error.code) }
}
