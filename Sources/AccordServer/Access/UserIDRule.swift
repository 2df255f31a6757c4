import AccordCRDT

/// The rule for user ids (a token's `sub`) in access rows and REST bodies: 1 to 256
/// bytes of UTF-8 without control characters, as for document ids, so an id is safe in
/// JSON, query strings and log lines.
enum UserIDRule {
    static let maxBytes = WireDocumentID.maxBytes

    static func validate(_ user: String) throws(AccordError) {
        try WireDocumentID.validateName(user, kind: "user id")
    }
}
