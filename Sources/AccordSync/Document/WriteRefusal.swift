public import AccordCRDT

/// The server error codes that mean "your updates to this document are refused", so
/// resending them would only be refused again: the document is parked instead.
///
/// The codes are AccordServer's (`ServerErrorCodes.swift`), spelled here by their wire
/// strings because the client must not depend on the server target; a test compares
/// them with the server's constants so a rename on either side fails.
public enum WriteRefusal {
    /// The connection's user may read the document but not write it.
    public static let permissionDenied = ErrorCode(rawValue: "PERMISSION_DENIED")
    /// The update would take the stored document past the server's size limit.
    public static let documentTooLarge = ErrorCode(rawValue: "DOCUMENT_TOO_LARGE")

    /// A local update larger than the server's frame limit (its hello): refused by the
    /// client before sending, since the server would drop it unread.
    public static let messageTooLarge = ErrorCode(rawValue: "MESSAGE_TOO_LARGE")

    /// The codes that, in an `error` naming a document, refuse its writes.
    public static let codes: Set<ErrorCode> = [permissionDenied, documentTooLarge]

    /// Whether an error from the server refuses this document's writes.
    public static func refusesWrites(_ error: AccordError) -> Bool { codes.contains(error.code) }
}
