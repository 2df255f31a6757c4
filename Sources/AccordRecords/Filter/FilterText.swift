import AccordCRDT
package import AccordStore

/// The text rules of filters for other query engines of this package (the JSON
/// database evaluates the same ``Filter`` semantics over JSON documents): the one case
/// folding `$containsText` uses, and the SQL function that applies it.
package enum FilterText {
    /// The SQL function name that ``registerFold(on:)`` defines.
    package static let foldFunction = SQLPredicate.foldFunction

    /// Full case folding, as `$containsText` compares.
    package static func fold(_ text: String) -> String { CaseFolding.fold(text) }

    /// Defines ``foldFunction`` on `connection`, the same function the records index uses.
    package static func registerFold(on connection: SQLiteConnection) throws(AccordError) {
        try connection.defineTextFunction(SQLPredicate.foldFunction) { CaseFolding.fold(utf8: $0) }
    }
}
