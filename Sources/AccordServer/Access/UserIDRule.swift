import AccordCRDT

/// The rule for user ids (a token's `sub`) in access rows and REST bodies: 1 to 256
/// bytes of UTF-8 without control characters, as for document ids, so an id is safe in
/// JSON, query strings and log lines.
enum UserIDRule {
    static let maxBytes = WireDocumentID.maxBytes

    static func validate(_ user: String) throws(AccordError) {
        try WireDocumentID.validateName(user, kind: "user id")
    }

    /// `user` as a signed-in caller: an id the access rows could not hold is no sign-in
    /// (`UNAUTHENTICATED`), for every REST handler alike.
    static func signedIn(_ user: String) throws(AccordError) -> String {
        do {
            try validate(user)
        } catch {
            throw AccordError(.unauthenticated, "the credentials name no valid user: \(error.message)")
        }
        return user
    }
}
