import AccordCRDT
import AccordNet
import AccordStore

extension BlobsAPI {
    /// `GET` and `HEAD …/blobs/{sha256}`.
    ///
    /// Tampering: the content file is hashed before the first byte of a `GET` is sent,
    /// unless it already hashed right while it had the same identity (device, inode,
    /// size, modification and status-change times; any write changes the status-change
    /// time). A mismatch is 500 `STORAGE_CORRUPT` and no byte of the content. A whole
    /// body is hashed again as it is sent and its last slice held back until that
    /// matched, so a file changed after the check ends the connection short. So a
    /// repeated download costs one read of the file, a changed file two.
    func read(_ request: HTTPRequest, _ id: DocumentID, _ hash: BlobHash, user: String, head: Bool) throws(AccordError)
        -> HTTPResponse
    {
        _ = try requireRole(.reader, id, user: user)
        guard try isReferenced(hash, by: id), let info = try store.info(hash) else {
            let held = try blobs.uploadRecord(BlobUploadRecord.key(hash, id)).map(blobs.heldBytes) ?? 0
            var response = RESTError.response(Self.notFound(hash, id))
            response.headers.append((Self.uploadOffsetHeader, String(held)))
            return response
        }
        let etag = "\"\(hash.hex)\""
        var headers: [(name: String, value: String)] = [
            ("etag", etag), ("cache-control", Self.cacheControl), ("accept-ranges", "bytes"),
        ]
        if let match = request.header("if-none-match"), Self.matches(match, etag: etag) {
            return HTTPResponse(status: 304, contentType: info.contentType, headers: headers)
        }
        guard let reader = try store.contentReader(hash) else {
            // Sealed content or chunks (not how `accord serve` stores blobs): read whole
            // through the store, which verifies it, then answer from memory.
            return try answerFromMemory(request, info, headers: headers, head: head)
        }
        if !head, !blobs.wasVerified(hash, identity: reader.identity) {
            do {
                try reader.verify()
            } catch {
                blobs.rememberVerified(hash, identity: nil)
                throw error
            }
            blobs.rememberVerified(hash, identity: reader.identity)
        }
        let size = info.size
        let (status, start, end): (Int, Int64, Int64)
        switch ByteRange.parse(range: request.header("range"), size: size) {
        case .whole:
            (status, start, end) = (200, 0, size)
        case .part(let first, let last):
            (status, start, end) = (206, first, last)
            headers.append(("content-range", "bytes \(first)-\(last - 1)/\(size)"))
        case .unsatisfiable:
            headers.append(("content-range", "bytes */\(size)"))
            return HTTPResponse(status: 416, contentType: "text/plain; charset=utf-8", headers: headers)
        }
        let blobs = blobs
        let stream = try BlobFileBodyStream(reader: reader, start: start, end: end) {
            blobs.rememberVerified(hash, identity: nil)
        }
        return HTTPResponse(status: status, contentType: info.contentType, headers: headers, bodyStream: stream)
    }

    private func answerFromMemory(
        _ request: HTTPRequest, _ info: BlobInfo, headers: [(name: String, value: String)], head: Bool
    ) throws(AccordError) -> HTTPResponse {
        var headers = headers
        let bytes = try store.get(info.hash)
        switch ByteRange.parse(range: request.header("range"), size: info.size) {
        case .whole:
            return HTTPResponse(status: 200, contentType: info.contentType, headers: headers, body: bytes)
        case .part(let start, let end):
            headers.append(("content-range", "bytes \(start)-\(end - 1)/\(info.size)"))
            return HTTPResponse(
                status: 206, contentType: info.contentType, headers: headers, body: Array(bytes[Int(start)..<Int(end)]))
        case .unsatisfiable:
            headers.append(("content-range", "bytes */\(info.size)"))
            return HTTPResponse(status: 416, contentType: "text/plain; charset=utf-8", headers: headers)
        }
    }

    /// `If-None-Match`: `*` or a list of entity tags (weak ones compare weakly, RFC 9110 §13.1.2).
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingPrefix(" ")
            while tag.last == " " { tag = tag.dropLast() }
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            return tag == etag
        }
    }
}
