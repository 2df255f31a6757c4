import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    /// `PATCH /v1/documents/{id}` with `{"title"?: string, "tags"?: [string],
    /// "thumbnailBlobId"?: string|null, "metadata"?: any|null}` (owner or read-write).
    /// An absent field stays as it is, `null` clears it, `metadata` is replaced whole.
    /// Everything is checked before anything is written; 200 with the document body.
    func updateDocument(_ request: HTTPRequest, _ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        let body = try JSONBody(request.body, allowedKeys: ["title", "tags", "thumbnailBlobId", "metadata"])
        let title = try body.string("title")
        let tags = try body.strings("tags")
        try Self.validate(title: title ?? "", tags: tags ?? [])
        let thumbnail = try body.nullableString("thumbnailBlobId")
        if case .value(let id) = thumbnail { try DocumentDetails.validateThumbnailID(id) }
        let metadata = body.json("metadata")
        var metadataText: String?
        if case .value(let value) = metadata { metadataText = try DocumentDetails.metadataText(value) }

        try requireDocument(id)
        let access = try directory.access.access(id)
        let role = try Self.requireRole(.readWrite, of: user, in: access, on: id, groups: directory.access)

        let stored = try directory.documents.metadata(id)
        var changed = false
        if (title != nil && title != stored.title) || (tags != nil && tags != stored.tags) {
            changed = true
            try directory.documents.updateMetadata(id) { entry in
                if let title { entry.title = title }
                if let tags { entry.tags = tags }
            }
        }
        var details = try directory.details(id)
        let before = details
        switch thumbnail {
        case .absent: break
        case .null: details.thumbnailBlobID = nil
        case .value(let value): details.thumbnailBlobID = value
        }
        switch metadata {
        case .absent: break
        case .null: details.metadata = nil
        case .value: details.metadata = metadataText
        }
        if details != before {
            changed = true
            try directory.setDetails(details, for: id)
        }
        if changed { directoryChanged(.entry(id)) }
        return try documentResponse(id, role: role, owner: access?.owner ?? "")
    }

    /// `DELETE /v1/documents/{id}` (owner only): the document, its log, its grants and
    /// its details go; the sync server closes its open connections with
    /// `DOCUMENT_DELETED`. 200 with `{"id": …, "deleted": true}`.
    func deleteDocument(_ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        try requireDocument(id)
        let access = try directory.access.access(id)
        _ = try Self.requireRole(.owner, of: user, in: access, on: id, groups: directory.access)
        try Self.refuseRoot(access, id, "deleted")
        try directory.delete(id)
        if let access { directoryChanged(.deleted(id, before: access)) }
        accessChanged(id)
        // Its blobs may now be unreferenced.
        blobs?.collectionRequested()
        return RESTJSON.response(status: 200, DeletedBody(id: id.rawValue, deleted: true))
    }
}

/// `DELETE /v1/documents/{id}`'s answer.
struct DeletedBody: Encodable {
    var id: String
    var deleted: Bool
}
