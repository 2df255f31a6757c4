public import AccordCRDT

extension BlobStore {
    /// Stores `bytes` and returns its info. When the same content is already stored,
    /// nothing is written and the stored blob's info (first content type and creation
    /// time) comes back; the stored copy is not re-read, so to replace a copy that
    /// reads as `STORAGE_CORRUPT`, ``delete(_:)`` it first. `document`, if given, gets a
    /// reference to the blob in the same atomic batch, so a collection can never remove
    /// the blob in between.
    @discardableResult
    public func put(
        _ bytes: [UInt8], contentType: String = "application/octet-stream", referencedBy document: DocumentID? = nil
    ) throws(AccordError) -> BlobInfo {
        var offset = 0
        let chunkSize = tuning.chunkSize
        return try upload(contentType: contentType, reference: document) { () throws(AccordError) -> [UInt8]? in
            guard offset < bytes.count else { return nil }
            let end = min(offset + chunkSize, bytes.count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }

    /// Stores the content of the file at `path`, streaming it: memory stays near
    /// `chunkSize * chunksPerBatch` whatever the file's size. A file that cannot be
    /// opened or read is `IO_ERROR`, and nothing is kept. Same dedupe and reference
    /// rules as ``put(_:contentType:referencedBy:)``.
    @discardableResult
    public func put(
        contentsOfFile path: String, contentType: String = "application/octet-stream",
        referencedBy document: DocumentID? = nil
    ) throws(AccordError) -> BlobInfo {
        try Self.validateContentType(contentType)
        let reader = try BlobFileReader(path: path)
        defer { reader.close() }
        let chunkSize = tuning.chunkSize
        return try upload(contentType: contentType, reference: document) { () throws(AccordError) -> [UInt8]? in
            try reader.next(chunkSize)
        }
    }

    /// Validates the arguments, then feeds `nextChunk` (full-sized chunks until the
    /// last) through a ``BlobUpload``, abandoning it on any error.
    private func upload(
        contentType: String, reference document: DocumentID?, nextChunk: () throws(AccordError) -> [UInt8]?
    ) throws(AccordError) -> BlobInfo {
        try Self.validateContentType(contentType)
        var upload = try BlobUpload(store: self)
        do throws(AccordError) {
            while let chunk = try nextChunk() { try upload.append(chunk) }
            return try upload.finish(contentType: contentType, reference: document)
        } catch {
            upload.abandon()
            throw error
        }
    }
}
