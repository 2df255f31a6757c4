import AccordCRDT

/// Couchbase Lite's rule for scope and collection names (also used here for database
/// names, which become file names): 1 to 251 characters, each an ASCII letter, digit,
/// `_`, `-` or `%`, not starting with `_` or `%`. The default scope and collection are
/// both named `_default`, the one name allowed to start with `_`.
enum CollectionName {
    static let defaultName = "_default"
    static let maximumLength = 251

    static func validate(_ name: String, kind: String) throws(AccordError) {
        if name == defaultName, kind != "database" { return }
        let bytes = Array(name.utf8)
        guard (1...maximumLength).contains(bytes.count) else {
            throw invalid(name, kind, "has 1 to \(maximumLength) characters, not \(name.unicodeScalars.count)")
        }
        guard bytes.allSatisfy(isAllowed) else {
            throw invalid(name, kind, "may hold only letters, digits, '_', '-' and '%'")
        }
        guard bytes[0] != UInt8(ascii: "_"), bytes[0] != UInt8(ascii: "%") else {
            throw invalid(name, kind, "may not start with '_' or '%'")
        }
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    private static func invalid(_ name: String, _ kind: String, _ rule: String) -> AccordError {
        AccordError(.invalidName, "the \(kind) name \"\(name)\" is invalid: a \(kind) name \(rule)",
            details: [kind: name])
    }
}
