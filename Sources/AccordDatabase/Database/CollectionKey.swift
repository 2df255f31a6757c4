import AccordCRDT
import AccordStore

/// A collection's scope and name, and the names derived from them: the row key in the
/// document table (`scope.name`; `.` is in neither name) and the store document that
/// holds its content (`database/<scope>/<name>`, hashed when that is longer than a
/// document id may be; the store title keeps the names either way).
struct CollectionKey: Hashable, Sendable {
    let scope: String
    let name: String

    static let defaultCollection = CollectionKey(scope: CollectionName.defaultName, name: CollectionName.defaultName)
    static let documentPrefix = "database/"

    var tableName: String { "\(scope).\(name)" }

    func documentID() throws(AccordError) -> DocumentID {
        let plain = "\(Self.documentPrefix)\(scope)/\(name)"
        if plain.utf8.count <= 256 { return try DocumentID(validating: plain) }
        var hasher = try SHA256Hasher()
        hasher.update(Array(tableName.utf8))
        return try DocumentID(validating: "\(Self.documentPrefix)hashed/\(hasher.finish())")
    }

    /// The key a store document of this layer stands for (its title is `scope.name`).
    init?(storeTitle title: String, id: DocumentID) {
        guard id.rawValue.hasPrefix(Self.documentPrefix) else { return nil }
        self.init(tableName: title)
    }

    /// The key of a table name (`scope.name`).
    init?(tableName: String) {
        let parts = tableName.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        self.init(scope: String(parts[0]), name: String(parts[1]))
    }

    init(scope: String, name: String) {
        self.scope = scope
        self.name = name
    }
}
