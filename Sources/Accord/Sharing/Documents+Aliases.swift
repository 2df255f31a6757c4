public import AccordCRDT
import AccordSync

/// Aliases and the root document (`docs/sharing.md`): names that every device of a user
/// resolves to the same document, decided by the server in one atomic step.
extension Documents {
    /// The document `alias` names, created (owned by the caller) when there is none.
    /// Two devices racing get the same document, and `created` is true for exactly one.
    /// `title` and `tags` apply only when it is created.
    public func getOrCreateWithAlias(alias: AliasRef, title: String = "", tags: [String] = []) async throws(AccordError)
        -> AliasedDocument
    {
        try SharingWire.aliased(try await client.send(ServerCall(.put, Self.aliasPath(alias), body: Self.body(title, tags))))
    }

    /// Creates a document under `alias`; `ALIAS_EXISTS` (409) when it already names one.
    public func createWithAlias(alias: AliasRef, title: String = "", tags: [String] = []) async throws(AccordError)
        -> AliasedDocument
    {
        try SharingWire.aliased(try await client.send(ServerCall(.post, Self.aliasPath(alias), body: Self.body(title, tags))))
    }

    /// The document `alias` names; `DOCUMENT_NOT_FOUND` when none.
    public func resolveAlias(_ alias: AliasRef) async throws(AccordError) -> DocumentInfo {
        try SharingWire.info(try await client.send(ServerCall(.get, Self.aliasPath(alias))))
    }

    /// The caller's root document, created on first use: one per user, the same on
    /// every device, never shared, transferred or deleted (`ROOT_DOCUMENT_PROTECTED`).
    public func root() async throws(AccordError) -> AliasedDocument {
        try SharingWire.aliased(try await client.send(ServerCall(.put, ["v1", "me", "root"])))
    }

    private static func aliasPath(_ alias: AliasRef) -> [String] {
        ["v1", "aliases", alias.scope.rawValue, alias.aliasKey]
    }

    private static func body(_ title: String, _ tags: [String]) -> [UInt8] {
        SharingWire.body(["title": .string(title), "tags": .array(tags.map(AnyValue.string))])
    }
}
