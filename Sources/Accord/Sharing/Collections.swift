public import AccordSync
import AccordCRDT

/// Collections as an app sees them (`docs/sharing.md`, Collections): a user's named set
/// of documents whose members get a role on every document in it, now and later.
public struct Collections: Sendable {
    public let client: AccordClient

    /// Creates a collection (a random id unless given) owned by the caller.
    /// - Throws: `COLLECTION_EXISTS` (409), `INVALID_ARGUMENT`.
    @discardableResult
    public func create(id: String? = nil, title: String = "") async throws(AccordError) -> CollectionInfo {
        var fields = ["title": title]
        if let id { fields["id"] = id }
        return try CollectionInfo(json: try await client.send(ServerCall(.post, ["v1", "collections"], body: SharingWire.body(fields))))
    }

    /// The collection (any member).
    public func get(_ collectionID: String) async throws(AccordError) -> CollectionInfo {
        try CollectionInfo(json: try await client.send(ServerCall(.get, ["v1", "collections", collectionID])))
    }

    /// Adds a document the caller owns (the caller must own the collection too).
    @discardableResult
    public func addDocument(_ id: DocumentID, to collectionID: String) async throws(AccordError) -> CollectionInfo {
        let call = ServerCall(
            .put, ["v1", "collections", collectionID, "documents"], body: SharingWire.body(["document": id.rawValue]))
        return try CollectionInfo(json: try await client.send(call))
    }

    /// Takes a document out; the document's own grants stay.
    @discardableResult
    public func removeDocument(_ id: DocumentID, from collectionID: String) async throws(AccordError) -> CollectionInfo {
        let call = ServerCall(.delete, ["v1", "collections", collectionID, "documents"], query: [("document", id.rawValue)])
        return try CollectionInfo(json: try await client.send(call))
    }

    /// Gives `user` `permission` in the collection (collection owners only): it applies
    /// to every document in it (owner also manages the collection; on a document it
    /// counts as read-write).
    @discardableResult
    public func setMember(_ user: String, permission: DocumentPermission, in collectionID: String) async throws(AccordError)
        -> CollectionInfo
    {
        let call = ServerCall(
            .put, ["v1", "collections", collectionID, "members"],
            body: SharingWire.body(["user": user, "role": permission.rawValue]))
        return try CollectionInfo(json: try await client.send(call))
    }

    /// Removes a member (not the collection's owner).
    @discardableResult
    public func removeMember(_ user: String, from collectionID: String) async throws(AccordError) -> CollectionInfo {
        let call = ServerCall(.delete, ["v1", "collections", collectionID, "members"], query: [("user", user)])
        return try CollectionInfo(json: try await client.send(call))
    }

    /// One page of the collection's documents, by id, each with the caller's permission
    /// and `source == "collection"` (members only).
    public func listDocuments(collectionID: String, limit: Int = 50, cursor: String? = nil) async throws(AccordError)
        -> DocumentPage
    {
        var query: [(name: String, value: String)] = [("limit", String(limit))]
        if let cursor { query.append(("cursor", cursor)) }
        return try SharingWire.page(
            try await client.send(ServerCall(.get, ["v1", "collections", collectionID, "documents"], query: query)))
    }
}

/// A collection: its owner, title, members with their roles, and documents.
public struct CollectionInfo: Sendable, Hashable {
    public var id: String
    public var owner: String
    public var title: String
    public var members: [String: DocumentPermission]
    public var documents: [DocumentID]

    init(json body: [UInt8]) throws(AccordError) {
        struct Wire: Decodable {
            var id: String
            var owner: String
            var title: String
            var members: [String: DocumentPermission]
            var documents: [String]
        }
        let wire = try SharingWire.decode(Wire.self, body)
        id = wire.id
        owner = wire.owner
        title = wire.title
        members = wire.members
        documents = wire.documents.compactMap { DocumentID(rawValue: $0) }
    }
}

extension AccordClient {
    /// The collections API.
    public nonisolated var collections: Collections { Collections(client: self) }
}
