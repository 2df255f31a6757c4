import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    /// Longest title, in UTF-8 bytes.
    static let maxTitleBytes = 1024
    /// Most tags on one document, and the longest tag in UTF-8 bytes.
    static let maxTags = 64
    static let maxTagBytes = 256

    /// `POST /v1/documents` with `{"id"?: string, "title"?: string, "tags"?: [string]}`:
    /// creates the document with the caller as owner; 201 with the document body.
    func create(_ request: HTTPRequest, user: String) throws(AccordError) -> HTTPResponse {
        let body = try JSONBody(request.body, allowedKeys: ["id", "title", "tags"])
        let id = try body.string("id").map { raw throws(AccordError) in try DocumentID(validating: raw) }
            ?? GeneratedDocumentID.make()
        let title = try body.string("title") ?? ""
        let tags = try body.strings("tags") ?? []
        try Self.validate(title: title, tags: tags)
        let metadata = try directory.create(id, owner: user, title: title, tags: tags)
        return RESTJSON.response(status: 201, DocumentBody(metadata, permission: .owner))
    }

    /// `GET /v1/documents/{id}`: the metadata and the caller's role; any role may read it.
    func document(_ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        try requireDocument(id)
        let role = try Self.requireRole(.reader, of: user, in: try directory.access.access(id), on: id)
        let metadata = try directory.documents.metadata(id)
        return RESTJSON.response(status: 200, DocumentBody(metadata, permission: role))
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
