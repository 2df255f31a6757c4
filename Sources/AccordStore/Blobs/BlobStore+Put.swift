public import AccordCRDT
import Foundation

extension BlobStore {
    /// Stores `bytes` and returns its info. When the same content is already stored,
    /// nothing is kept and the stored blob's info (first content type and creation
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
        return try upload(contentType: contentType, reference: document) { (body) throws(AccordError) -> Bool in
            guard offset < bytes.count else { return false }
            let end = min(offset + chunkSize, bytes.count)
            defer { offset = end }
            try bytes.withBytes { (all) throws(AccordError) in
                try body(UnsafeRawBufferPointer(rebasing: all[offset..<end]))
            }
            return true
        }
    }

    /// Stores the content of the file at `path`, streaming it through one reused buffer
    /// of `chunkSize` bytes (plus a batch of chunks for adapters without a blob
    /// directory), whatever the file's size. A file that cannot be opened or read is
    /// `IO_ERROR`, and nothing is kept. Same dedupe and reference rules as
    /// ``put(_:contentType:referencedBy:)``.
    @discardableResult
    public func put(
        contentsOfFile path: String, contentType: String = "application/octet-stream",
        referencedBy document: DocumentID? = nil
    ) throws(AccordError) -> BlobInfo {
        try Self.validateContentType(contentType)
        let source: PosixFile
        do throws(PosixFile.Failure) {
            source = try PosixFile(path: path, flags: O_RDONLY)
        } catch {
            throw error.accordError(.ioError, "cannot open \(path) for reading", path: path)
        }
        var buffer = [UInt8](repeating: 0, count: tuning.chunkSize)
        return try upload(contentType: contentType, reference: document) { (body) throws(AccordError) -> Bool in
            try buffer.withMutableBytes { (buffer) throws(AccordError) -> Bool in
                let count: Int
                do throws(PosixFile.Failure) {
                    count = try source.readFully(into: buffer)
                } catch {
                    throw error.accordError(.ioError, "cannot read \(path)", path: path)
                }
                guard count > 0 else { return false }
                try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                return true
            }
        }
    }

    /// Validates the arguments, then feeds the pieces `nextPiece` hands to its body
    /// (full-sized until the last; false at the end) through an upload into the blob
    /// directory, or into chunks when the storage has none, abandoning it on any error.
    private func upload(
        contentType: String, reference document: DocumentID?,
        nextPiece: ((UnsafeRawBufferPointer) throws(AccordError) -> Void) throws(AccordError) -> Bool
    ) throws(AccordError) -> BlobInfo {
        try Self.validateContentType(contentType)
        if let directory {
            var upload = try BlobFileUpload(store: self, directory: directory)
            return try run(&upload, contentType: contentType, reference: document, nextPiece: nextPiece)
        }
        var upload = try BlobUpload(store: self)
        return try run(&upload, contentType: contentType, reference: document, nextPiece: nextPiece)
    }

    private func run<Upload: BlobContentUpload>(
        _ upload: inout Upload, contentType: String, reference document: DocumentID?,
        nextPiece: ((UnsafeRawBufferPointer) throws(AccordError) -> Void) throws(AccordError) -> Bool
    ) throws(AccordError) -> BlobInfo {
        do throws(AccordError) {
            while try nextPiece({ (piece) throws(AccordError) in try upload.append(piece) }) {}
            return try upload.finish(contentType: contentType, reference: document)
        } catch {
            upload.abandon()
            throw error
        }
    }
}

/// A put in progress, whichever way its content is kept: ``BlobFileUpload`` (a file in
/// the blob directory) or ``BlobUpload`` (chunks in the adapter).
protocol BlobContentUpload {
    /// Adds the next piece of content: `chunkSize` bytes, fewer only for the last one.
    mutating func append(_ piece: UnsafeRawBufferPointer) throws(AccordError)
    /// Makes the content durable and commits its index record (and the reference).
    mutating func finish(contentType: String, reference document: DocumentID?) throws(AccordError) -> BlobInfo
    /// Removes what an unfinished upload wrote, best effort.
    func abandon()
}
