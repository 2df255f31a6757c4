import AccordCRDT
import AccordNet
import AccordStore
import Foundation

extension BlobsAPI {
    /// `PUT …/blobs/{sha256}`, decided from the head alone: every refusal (access,
    /// size limit, quota, offset) is answered before a byte of the body is read, and
    /// the connection then closes so the unread body is never taken for a request.
    ///
    /// - Whole upload: no `Content-Range`; `Content-Length` is the blob's size.
    /// - Continuing: `Content-Range: bytes START-END/TOTAL`, START = the offset the
    ///   server holds (`HEAD` tells it); START 0 starts over.
    /// - Content already stored: the document's reference is added and 200 answers at
    ///   once, without the body.
    func upload(_ request: HTTPRequest) -> HTTPUploadDecision {
        do {
            return try decideUpload(request)
        } catch {
            return .respond(RESTError.response(error))
        }
    }

    private func decideUpload(_ request: HTTPRequest) throws(AccordError) -> HTTPUploadDecision {
        guard let route = BlobsRoute.parse(request.path), let blob = route.blob else {
            return .respond(DocumentsRoute.Refusal.notFound.response)
        }
        let user = try UserIDRule.signedIn(authenticate(request))
        let id = try DocumentID(validating: route.document)
        let hash = try BlobHash(hex: blob.lowercased())
        _ = try requireRole(.readWrite, id, user: user)
        let contentType = request.header("content-type") ?? "application/octet-stream"
        guard BlobsAPI.isValidContentType(contentType) else {
            throw AccordError(
                .invalidArgument, "a blob content type is 1 to 255 printable ASCII characters",
                details: ["field": "Content-Type"])
        }
        let length = Int64(request.header("content-length") ?? "0") ?? 0
        let part = try Self.part(request, length: length)
        guard part.total <= blobs.limits.maxBlobBytes else {
            throw AccordError(
                .blobTooLarge, "the blob has \(part.total) bytes; this server takes at most \(blobs.limits.maxBlobBytes)",
                details: ["limit": String(blobs.limits.maxBlobBytes), "size": String(part.total)])
        }
        guard let owner = try blobs.owner(of: id) else {
            throw AccordError(.docAccessDenied, "no access to document \(id)", details: ["document": id.rawValue])
        }
        let key = BlobUploadRecord.key(hash, id)

        // Stored content is only referenced, unless its file is damaged: then the upload
        // runs and its verified bytes replace the file (a client re-sending a blob heals it).
        let stored = try store.info(hash)
        if let info = stored, try isIntact(hash) {
            if let answer = try referenceStoredContent(info, id, owner: owner, key: key) { return .respond(answer) }
        }
        try checkQuota(owner: owner, adding: part.total, key: key, hash: hash)
        guard blobs.beginStreaming(key) else {
            throw AccordError(
                .blobUploadInProgress, "blob \(hash.hex) is being uploaded to document \(id) right now",
                details: ["blob": hash.hex, "document": id.rawValue])
        }
        // New small content sent whole: kept in memory and stored in one commit.
        // (Damaged stored content goes the resumable way, which replaces its file.)
        if stored == nil, request.header("content-range") == nil, part.total <= Int64(store.tuning.inlineLimit) {
            blobs.reserveSmallUpload(key, owner: owner, bytes: part.total)
            return .stream(
                SmallBlobUploadSink(
                    blobs: blobs, key: key, hash: hash, document: id, contentType: contentType, total: Int(part.total)))
        }
        do {
            return .stream(try openUpload(hash, id, key: key, part: part, contentType: contentType, owner: owner))
        } catch {
            blobs.endStreaming(key)
            throw error
        }
    }

    /// Whether the stored content file hashes right (remembered per file identity, so
    /// this reads the file only once after a restart or a change). Content that is not
    /// a plain file is verified by the store on every read and counts as intact here.
    private func isIntact(_ hash: BlobHash) throws(AccordError) -> Bool {
        do {
            guard let reader = try store.contentReader(hash) else { return true }
            if blobs.wasVerified(hash, identity: reader.identity) { return true }
            try reader.verify()
            blobs.rememberVerified(hash, identity: reader.identity)
            return true
        } catch where error.code == .storageCorrupt {
            blobs.rememberVerified(hash, identity: nil)
            return false
        } catch where error.code == .blobNotFound {
            return true  // collected just now: the caller finds it gone and uploads
        }
    }

    /// The bytes this request carries: `start ..< start + length` of `total`.
    static func part(_ request: HTTPRequest, length: Int64) throws(AccordError) -> (start: Int64, total: Int64) {
        guard let header = request.header("content-range") else { return (0, length) }
        guard let range = ByteRange.parse(contentRange: header), range.end - range.start + 1 == length else {
            throw AccordError(
                .invalidArgument,
                "Content-Range must be 'bytes START-END/TOTAL' with END-START+1 equal to the Content-Length",
                details: ["field": "Content-Range"])
        }
        return (range.start, range.total)
    }

    /// Content already stored: adds the document's reference (within the quota) and
    /// answers 200; nil when a collection removed the content just now (the upload
    /// then proceeds as for new content).
    private func referenceStoredContent(_ info: BlobInfo, _ id: DocumentID, owner: String, key: String) throws(AccordError)
        -> HTTPResponse?
    {
        if try !isReferenced(info.hash, by: id) { try checkQuota(owner: owner, adding: info.size, key: key, hash: info.hash) }
        do {
            try store.addReference(info.hash, document: id)
        } catch where error.code == .blobNotFound {
            return nil
        }
        if let unfinished = try blobs.uploadRecord(key), !blobs.isStreaming(key) {
            try blobs.discardUpload(key, unfinished)
        }
        return RESTJSON.response(status: 200, BlobInfoBody(info))
    }

    /// `QUOTA_EXCEEDED` when `owner`'s usage plus `bytes` passes the quota. Content the
    /// owner's documents already reference (`hash`) counts once.
    private func checkQuota(owner: String, adding bytes: Int64, key: String, hash: BlobHash? = nil) throws(AccordError) {
        guard let quota = blobs.limits.quotaPerUser else { return }
        if let hash, try store.documents(referencing: hash).contains(where: { (try? directory.access.access($0)?.owner) == owner }) {
            return
        }
        let used = try blobs.usage(of: owner, excluding: key)
        guard used + bytes <= quota else {
            throw AccordError(
                .quotaExceeded,
                "the documents of \(owner) hold \(used) bytes of blobs; \(bytes) more would pass the quota of \(quota)",
                details: ["quota": String(quota), "used": String(used), "size": String(bytes)])
        }
    }

    /// Finds or starts the unfinished upload and checks the offset; the sink continues
    /// it with the hash of the bytes it already holds (read again from its file).
    private func openUpload(
        _ hash: BlobHash, _ id: DocumentID, key: String, part: (start: Int64, total: Int64), contentType: String,
        owner: String
    ) throws(AccordError) -> BlobUploadSink {
        let directory = try blobs.prepareUploadsDirectory()
        var record = try blobs.uploadRecord(key)
        var held = record.map(blobs.heldBytes) ?? 0
        if let existing = record, part.start == 0 || existing.total != part.total {
            guard part.start == 0 else {
                throw AccordError(
                    .blobUploadOffsetMismatch,
                    "the unfinished upload is of \(existing.total) bytes, not \(part.total); start over from 0",
                    details: ["offset": "0", "blob": hash.hex])
            }
            // Starting over: the old bytes go.
            try blobs.discardUpload(key, existing)
            record = nil
            held = 0
        }
        guard part.start == held else {
            throw AccordError(
                .blobUploadOffsetMismatch, "the server holds \(held) bytes of this upload; continue from there",
                details: ["offset": String(held), "blob": hash.hex])
        }
        let current = record ?? BlobUploadRecord(
            total: part.total, contentType: contentType, owner: owner, file: BlobUploadRecord.newFileName(),
            updated: blobs.now())
        // The record before any byte: a file no record names would be an orphan.
        if record == nil { try blobs.saveUploadRecord(current, key: key) }
        let path = "\(directory)/\(current.file).part"
        let hasher = try Self.hashPrefix(path: path, count: held)
        let file = try FileHandleWriter(path: path, offset: held)
        return BlobUploadSink(
            blobs: blobs, key: key, record: current, hash: hash, document: id, file: file, hasher: hasher, offset: held)
    }

    /// The hash state after the first `count` bytes of the file (a resumed upload).
    private static func hashPrefix(path: String, count: Int64) throws(AccordError) -> SHA256Hasher {
        var hasher = try SHA256Hasher()
        guard count > 0 else { return hasher }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AccordError(.storageError, "cannot reopen an unfinished blob upload", details: ["path": path])
        }
        defer { try? handle.close() }
        var left = count
        while left > 0 {
            let data: Data?
            do {
                data = try handle.read(upToCount: Int(min(left, 1 << 20)))
            } catch {
                throw AccordError(.storageError, "cannot read an unfinished blob upload: \(error)", details: ["path": path])
            }
            guard let data, !data.isEmpty else {
                throw AccordError(.storageError, "an unfinished blob upload is shorter than it was", details: ["path": path])
            }
            data.withUnsafeBytes { hasher.update($0) }
            left -= Int64(data.count)
        }
        return hasher
    }

    /// What the blob store takes as a content type: 1 to 255 printable ASCII bytes.
    static func isValidContentType(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count) && text.utf8.allSatisfy { (0x20...0x7e).contains($0) }
    }
}
