import AccordCRDT

/// A property path in a query, sort or index: keys joined by `.` (`"address.city"`).
/// Two names no document may hold as keys (see ``Collection/reservedKeys``) stand for
/// metadata: `_id` is the document's id, `_expiration` its expiration (seconds since
/// 1970, a number; absent when none is set).
struct KeyPath: Hashable {
    static let documentID = "_id"
    static let expiration = "_expiration"

    let text: String
    let components: [String]

    /// `INVALID_QUERY` for an empty path or component, or one holding `"` or a control
    /// character (SQLite's JSON paths cannot quote them).
    init(_ text: String, path: String) throws(AccordError) {
        self.text = text
        components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !text.isEmpty, components.allSatisfy({ !$0.isEmpty }) else {
            throw Self.invalid(path, "\"\(text)\" is not a key path (keys joined by '.', none empty)")
        }
        for component in components
        where component.contains("\"") || component.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw Self.invalid(path, "key path \"\(text)\": a key may not contain '\"' or control characters")
        }
    }

    var isDocumentID: Bool { text == Self.documentID }
    var isExpiration: Bool { text == Self.expiration }

    /// The SQL string literal of the JSON path, every key quoted: `'$."address"."city"'`.
    /// Inlined (not bound) so queries use the expression indexes built from the same text.
    var sqlLiteral: String {
        let path = "$" + components.map { ".\"\($0)\"" }.joined()
        return "'" + path.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The SQL expression of the value (the id or expiration column for the metadata names).
    var valueSQL: String {
        if isDocumentID { return "d.id" }
        if isExpiration { return "d.expiration" }
        return "json_extract(d.body, \(sqlLiteral))"
    }
    /// The SQL expression of the JSON type (NULL when absent).
    var typeSQL: String {
        if isDocumentID { return "'text'" }
        if isExpiration { return "(CASE WHEN d.expiration IS NULL THEN NULL ELSE 'real' END)" }
        return "json_type(d.body, \(sqlLiteral))"
    }

    /// The value at this path in a document, nil when absent.
    func value(in object: OrderedObject, id: String) -> AnyValue? {
        if isDocumentID { return .string(id) }
        var current = AnyValue.object(object)
        for component in components {
            guard case .object(let nested) = current, let next = nested[component] else { return nil }
            current = next
        }
        return current
    }

    static func invalid(_ path: String, _ problem: String) -> AccordError {
        AccordError(.invalidQuery, "\(path): \(problem)", details: ["path": path])
    }
}
