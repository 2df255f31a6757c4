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
        try put(bytes, BlobUploadCommit(contentType: contentType, reference: document))
    }

    /// ``put(_:contentType:referencedBy:)`` committing `operations` (the caller's own
    /// records, such as an upload-queue entry) in the same batch as the index record:
    /// both are durable, or neither.
    @discardableResult
    package func put(
        _ bytes: [UInt8], contentType: String, referencedBy document: DocumentID?, committingWith operations: [StorageOperation]
    ) throws(AccordError) -> BlobInfo {
        try put(bytes, BlobUploadCommit(contentType: contentType, reference: document, alongWith: operations))
    }

    private func put(_ bytes: [UInt8], _ commit: BlobUploadCommit) throws(AccordError) -> BlobInfo {
        var offset = 0
        let chunkSize = tuning.chunkSize
        return try upload(commit, size: bytes.count) { (body) throws(AccordError) -> Bool in
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
        let size: UInt64
        do throws(PosixFile.Failure) {
            source = try PosixFile(path: path, flags: O_RDONLY)
            size = try source.size()
        } catch {
            throw error.accordError(.ioError, "cannot open \(path) for reading", path: path)
        }
        var buffer = [UInt8](repeating: 0, count: tuning.chunkSize)
        // The size only picks where the content goes; a file that grows meanwhile is
        // still stored whole.
        let commit = BlobUploadCommit(contentType: contentType, reference: document)
        return try upload(commit, size: Int(clamping: size)) { (body) throws(AccordError) -> Bool in
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

    /// The upload a put of `size` bytes goes through: chunks in the storage for small
    /// blobs (``Tuning/inlineLimit``) or when there is no blob directory, else a
    /// content file.
    func makeUpload(size: Int) throws(AccordError) -> any BlobContentUpload {
        if let directory, !keepsInStorage(size: size) {
            return try BlobFileUpload(store: self, directory: directory)
        }
        return try BlobUpload(store: self)
    }

    /// Validates the arguments, then feeds the pieces `nextPiece` hands to its body
    /// (full-sized until the last; false at the end) through an upload, abandoning it
    /// on any error.
    private func upload(
        _ commit: BlobUploadCommit, size: Int,
        nextPiece: ((UnsafeRawBufferPointer) throws(AccordError) -> Void) throws(AccordError) -> Bool
    ) throws(AccordError) -> BlobInfo {
        try Self.validateContentType(commit.contentType)
        var upload = try makeUpload(size: size)
        do throws(AccordError) {
            while try nextPiece({ (piece) throws(AccordError) in try upload.append(piece) }) {}
            return try upload.finish(commit)
        } catch {
            upload.abandon()
            throw error
        }
    }
}

/// A put in progress, whichever way its content is kept: ``BlobFileUpload`` (a file in
/// the blob directory) or ``BlobUpload`` (chunks in the adapter).
protocol BlobContentUpload {
    /// Whether ``append(_:)`` takes pieces of any size. Otherwise each piece is
    /// `chunkSize` bytes, fewer only for the last (chunks, and sealed files, are cut so).
    var takesAnyPieceSize: Bool { get }
    /// Adds the next piece of content.
    mutating func append(_ piece: UnsafeRawBufferPointer) throws(AccordError)
    /// Makes the content durable and commits its index record (with the reference and
    /// the extra operations), after checking what the content must be.
    mutating func finish(_ commit: BlobUploadCommit) throws(AccordError) -> BlobInfo
    /// Removes what an unfinished upload wrote, best effort.
    func abandon()
    /// Hashes what is appended from now on on a thread of its own, where the upload
    /// can (a content file); a no-op elsewhere. For an upload fed from a thread whose
    /// time counts (a network service thread).
    mutating func hashInBackground() throws(AccordError)
}

extension BlobContentUpload {
    mutating func hashInBackground() throws(AccordError) {}
}

/// How a put ends: what the index record says, what else is committed with it, and
/// what the content must be (a download announces its hash and size).
struct BlobUploadCommit {
    var contentType: String
    var reference: DocumentID?
    /// The SHA-256 the content must have; another is `BLOB_HASH_MISMATCH` and nothing
    /// is kept.
    var expected: BlobHash?
    /// The size it must have, likewise.
    var expectedSize: UInt64?
    /// Committed in the same batch as the index record (a client's upload-queue entry),
    /// so both or neither are durable.
    var alongWith: [StorageOperation] = []

    /// `BLOB_HASH_MISMATCH` when the content hashed to `hash` with `size` bytes is not
    /// the expected one.
    func check(hash: BlobHash, size: UInt64) throws(AccordError) {
        guard let expected else { return }
        guard hash == expected, expectedSize.map({ $0 == size }) ?? true else {
            throw AccordError(
                .blobHashMismatch, "the content of blob \(expected) hashes to \(hash) (\(size) bytes)",
                details: ["blob": expected.hex, "actual": hash.hex, "size": String(size)])
        }
    }
}
