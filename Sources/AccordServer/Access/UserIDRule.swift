import AccordCRDT

/// The rule for user ids (a token's `sub`) in access rows and REST bodies: 1 to 256
/// bytes of UTF-8 without control characters, as for document ids, so an id is safe in
/// JSON, query strings and log lines.
enum UserIDRule {
    static let maxBytes = 256

    static func validate(_ user: String) throws(AccordError) {
        let count = user.utf8.count
        guard count >= 1, count <= maxBytes else {
            throw AccordError(.invalidArgument, "a user id has 1 to \(maxBytes) bytes of UTF-8, not \(count)")
        }
        if let bad = user.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let hex = String(bad.value, radix: 16, uppercase: true)
            throw AccordError(.invalidArgument, "a user id may not contain the control character U+\(hex)")
        }
    }
}
