public import AccordCRDT
import AccordStore

/// Aliases: a user's own names for documents (`"settings"`, `"inbox"`), so every device
/// of that user finds the same document without knowing its id. Rows live in category
/// `server.alias`, key `user/<byte count of the user id>:<user id>/<alias key>` (the
/// count keeps a `/` in a user id from making two keys equal), value the document id.
/// An alias whose document is gone counts as absent and is overwritten.
///
/// The root document is the alias ``rootAliasKey``, which users cannot name themselves.
extension DocumentDirectory {
    static let aliasCategory = StorageCategory("server.alias")
    /// Keys starting with `$` belong to the server.
    public static let rootAliasKey = "$root"
    static let maxAliasKeyBytes = 256

    /// `INVALID_ARGUMENT` unless `key` has 1 to 256 bytes of UTF-8 without control
    /// characters and does not start with `$`.
    public static func validateAliasKey(_ key: String) throws(AccordError) {
        guard !key.isEmpty, key.utf8.count <= maxAliasKeyBytes,
            !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }), !key.hasPrefix("$")
        else {
            throw AccordError(
                .invalidArgument,
                "an alias key has 1 to \(maxAliasKeyBytes) bytes, no control characters, and does not start with $",
                details: ["field": "aliasKey"])
        }
    }

    /// The document `user`'s alias names, if that document still exists.
    public func resolveAlias(user: String, key: String) throws(AccordError) -> DocumentID? {
        let storageKey = Self.aliasStorageKey(user: user, key: key)
        guard let bytes = try access.storage.withAdapter({ try $0.read(Self.aliasCategory, key: storageKey) }),
            let id = DocumentID(rawValue: String(decoding: bytes, as: UTF8.self)), try documents.contains(id)
        else { return nil }
        return id
    }

    /// The document `user`'s alias names, creating it (owned by `user`, with a generated
    /// id) when there is none: one atomic step, so of any number of concurrent calls for
    /// one alias exactly one reports `created`. With `mustCreate`, an existing alias is
    /// `ALIAS_EXISTS` instead. Creating counts against the user's quota.
    public func documentForAlias(
        user: String, key: String, title: String = "", tags: [String] = [], mustCreate: Bool = false
    ) throws(AccordError) -> (id: DocumentID, created: Bool) {
        try UserIDRule.validate(user)
        access.creation.lock()
        defer { access.creation.unlock() }
        if let existing = try resolveAlias(user: user, key: key) {
            if mustCreate {
                throw AccordError(
                    .aliasExists, "the alias \(key) already names document \(existing)",
                    details: ["aliasKey": key, "document": existing.rawValue])
            }
            return (existing, false)
        }
        try creationQuota?.take(user)
        do {
            let id = GeneratedDocumentID.make()
            var row = DocumentAccess(owner: user)
            if key == Self.rootAliasKey { row.isRoot = true }
            let storageKey = Self.aliasStorageKey(user: user, key: key)
            // Owner row, then alias, then document: a crash leaves rows that name no
            // document, which count as absent.
            _ = try createWhileLocked(
                id, access: row,
                beforeDocument: { () throws(AccordError) in
                    try access.storage.withAdapter {
                        try $0.commit([.put(Self.aliasCategory, key: storageKey, value: Array(id.rawValue.utf8))])
                    }
                }, title: title, tags: tags)
            return (id, true)
        } catch {
            creationQuota?.giveBack(user)
            throw error
        }
    }

    /// `user`'s root document, created on first use. It is never shared, transferred
    /// or deleted (`ROOT_DOCUMENT_PROTECTED`).
    public func rootDocument(of user: String) throws(AccordError) -> (id: DocumentID, created: Bool) {
        try documentForAlias(user: user, key: Self.rootAliasKey)
    }

    static func aliasStorageKey(user: String, key: String) -> String {
        "user/\(user.utf8.count):\(user)/\(key)"
    }
}
