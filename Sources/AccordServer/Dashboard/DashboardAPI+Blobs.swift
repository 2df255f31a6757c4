import AccordCRDT
import AccordNet
import AccordStore

extension DashboardAPI {
    /// `GET /v1/admin/dashboard/document/blob?id=&hash=`: a blob the document
    /// references, as a download. Streamed from its content file a slice at a time
    /// (``BlobFileBodyStream``, which hashes a whole body as it goes and ends the
    /// connection short if the file changed), after one full check of the hash.
    ///
    /// Always `application/octet-stream` with `content-disposition: attachment` and
    /// the dashboard's strict headers: the blob's own content type is what a user
    /// said it was, and a browser must never render it on the dashboard's origin.
    /// The stored type travels in `x-accord-blob-content-type`.
    func blobDownload(_ id: DocumentID, _ request: HTTPRequest) throws(AccordError) -> HTTPResponse {
        guard let raw = request.queryValue("hash") else {
            throw AccordError(.invalidArgument, "name the blob with ?hash=", details: ["parameter": "hash"])
        }
        let hash = try BlobHash(hex: raw)
        guard let store = blobStore, try store.blobs(referencedBy: id).contains(where: { $0.hash == hash }),
              let info = try store.info(hash)
        else { throw BlobsAPI.notFound(hash, id) }
        let headers: [(name: String, value: String)] = [
            ("content-disposition", "attachment; filename=\"\(hash.hex)\""),
            ("x-accord-blob-content-type", Self.headerSafe(info.contentType)),
        ]
        guard let reader = try store.contentReader(hash) else {
            // Sealed or chunked content (not how `accord serve` stores blobs): the store
            // reads and verifies it whole.
            return HTTPResponse(
                status: 200, contentType: "application/octet-stream", headers: headers, body: try store.get(hash))
        }
        try reader.verify()
        let stream = try BlobFileBodyStream(reader: reader, start: 0, end: info.size) {}
        return HTTPResponse(status: 200, contentType: "application/octet-stream", headers: headers, bodyStream: stream)
    }

    /// A stored content type as a header value: printable ASCII only (anything else,
    /// a line break above all, would end the header).
    static func headerSafe(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }))
    }
}
