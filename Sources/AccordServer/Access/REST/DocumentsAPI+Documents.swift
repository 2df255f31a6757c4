import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    /// Longest title, in UTF-8 bytes.
    static let maxTitleBytes = 1024
    /// Most tags on one document, and the longest tag in UTF-8 bytes.
    static let maxTags = 64
    static let maxTagBytes = 256

    /// `POST /v1/documents` with `{"id"?: string, "title"?: string, "tags"?: [string],
    /// "metadata"?: any, "thumbnailBlobId"?: string}`: creates the document with the
    /// caller as owner; 201 with the document body.
    func create(_ request: HTTPRequest, user: String) throws(AccordError) -> HTTPResponse {
        let body = try JSONBody(request.body, allowedKeys: ["id", "title", "tags", "metadata", "thumbnailBlobId"])
        let id = try body.string("id").map { raw throws(AccordError) in try DocumentID(validating: raw) }
            ?? GeneratedDocumentID.make()
        let title = try body.string("title") ?? ""
        let tags = try body.strings("tags") ?? []
        try Self.validate(title: title, tags: tags)
        var details = DocumentDetails()
        if case .value(let value) = body.json("metadata") { details.metadata = try DocumentDetails.metadataText(value) }
        if let thumbnail = try body.string("thumbnailBlobId") {
            try DocumentDetails.validateThumbnailID(thumbnail)
            details.thumbnailBlobID = thumbnail
        }
        let metadata = try directory.create(id, owner: user, title: title, tags: tags)
        // After the document: a details row without its document would mean nothing.
        try directory.setDetails(details, for: id)
        directoryChanged(.created(id, owner: user))
        return RESTJSON.response(status: 201, DocumentBody(metadata, permission: .owner, owner: user, details: details))
    }

    /// `GET /v1/documents/{id}`: the metadata and the caller's role; any role may read it.
    func document(_ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        try requireDocument(id)
        let access = try directory.access.access(id)
        let role = try Self.requireRole(.reader, of: user, in: access, on: id, groups: directory.access)
        return try documentResponse(id, role: role, owner: access?.owner ?? "")
    }

    /// The document body of `id` as `role` sees it.
    func documentResponse(_ id: DocumentID, role: Role, owner: String) throws(AccordError) -> HTTPResponse {
        let metadata = try directory.documents.metadata(id)
        let details = try directory.details(id)
        return RESTJSON.response(status: 200, DocumentBody(metadata, permission: role, owner: owner, details: details))
    }

    static func validate(title: String, tags: [String]) throws(AccordError) {
        guard title.utf8.count <= maxTitleBytes else {
            throw AccordError(
                .invalidArgument, "a title has at most \(maxTitleBytes) bytes", details: ["field": "title"])
        }
        guard tags.count <= maxTags else {
            throw AccordError(.invalidArgument, "a document has at most \(maxTags) tags", details: ["field": "tags"])
        }
        if tags.contains(where: { $0.isEmpty || $0.utf8.count > maxTagBytes }) {
            throw AccordError(.invalidArgument, "a tag has 1 to \(maxTagBytes) bytes", details: ["field": "tags"])
        }
    }
}
