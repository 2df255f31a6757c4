import AccordCRDT
import AccordNet
import AccordStore
import Foundation
#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
private let systemClose = Glibc.close
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
private let systemClose = Darwin.close
#endif

/// The body of one blob `PUT`, written to its unfinished upload's file as it arrives
/// and hashed on the way. Memory stays at one receive buffer: each piece is written
/// before the next is read from the socket.
///
/// - All bytes of the blob arrived: the hash decides. A match moves the file into the
///   blob store with the document's reference (201, or 200 when the content was
///   already there); a mismatch discards the file and the record (422
///   `BLOB_HASH_MISMATCH`): nothing of it is kept.
/// - This request's bytes arrived but the blob is not complete (a `Content-Range`
///   part): the file is synced and 202 tells the offset.
/// - The connection ended early: the file is synced, so the bytes received so far are
///   the durable offset a `HEAD` reports and a later `PUT` continues from.
final class BlobUploadSink: HTTPBodySink, @unchecked Sendable {
    // @unchecked: used on the service thread only.
    private let blobs: ServerBlobs
    private let key: String
    private let record: BlobUploadRecord
    private let hash: BlobHash
    private let document: DocumentID
    private let file: FileHandleWriter
    private var hasher: SHA256Hasher
    private var offset: Int64
    private var ended = false

    init(
        blobs: ServerBlobs, key: String, record: BlobUploadRecord, hash: BlobHash, document: DocumentID,
        file: FileHandleWriter, hasher: SHA256Hasher, offset: Int64
    ) {
        self.blobs = blobs
        self.key = key
        self.record = record
        self.hash = hash
        self.document = document
        self.file = file
        self.hasher = hasher
        self.offset = offset
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse? {
        do throws(AccordError) {
            try file.write(bytes)
        } catch {
            end()
            return RESTError.response(error)
        }
        hasher.update(bytes)
        offset += Int64(bytes.count)
        return nil
    }

    func finish() -> HTTPResponse {
        defer { end() }
        do throws(AccordError) {
            guard offset == record.total else {
                try file.synchronize()
                var touched = record
                touched.updated = blobs.now()
                try blobs.saveUploadRecord(touched, key: key)
                return RESTJSON.response(
                    status: 202, BlobUploadProgressBody(blobId: hash.hex, offset: offset, size: record.total),
                    headers: [(BlobsAPI.uploadOffsetHeader, String(offset))])
            }
            let digest = hasher.finish()
            guard digest == hash else {
                try blobs.discardUpload(key, record)
                throw AccordError(
                    .blobHashMismatch, "the uploaded bytes hash to \(digest.hex), not \(hash.hex); nothing was kept",
                    details: ["blob": hash.hex, "received": digest.hex])
            }
            file.close()
            guard let path = blobs.partialPath(record.file) else {
                throw AccordError(.storageError, "this server's storage has no directory for blob uploads")
            }
            // The content may be stored already (the stored copy was damaged, which is
            // why this upload ran, or another upload finished first): these verified
            // bytes take its place.
            let (info, created) = try blobs.store.adopt(
                fileAt: path, hash: hash, contentType: record.contentType, referencedBy: document, replacingExisting: true)
            try blobs.discardUpload(key, record)
            if let reader = try? blobs.store.contentReader(hash) {
                // These bytes were hashed as they were written and the file was renamed
                // into place: its identity now is a verified one, and the first download
                // need not read the file twice.
                blobs.rememberVerified(hash, identity: reader.identity)
            }
            return RESTJSON.response(status: created ? 201 : 200, BlobInfoBody(info))
        } catch {
            return RESTError.response(error)
        }
    }

    func abort() {
        end()
    }

    /// Syncs what the file holds (the offset a `HEAD` reports) and frees the upload for
    /// the next request.
    private func end() {
        guard !ended else { return }
        ended = true
        try? file.synchronize()
        file.close()
        blobs.endStreaming(key)
    }
}

/// Appends to an unfinished upload's file.
final class FileHandleWriter: @unchecked Sendable {
    // @unchecked: used on the service thread only.
    let path: String
    private var descriptor: Int32

    /// Opens `path` for writing at `offset` (creating it, truncating what lies beyond).
    init(path: String, offset: Int64) throws(AccordError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("open", path) }
        guard ftruncate(descriptor, off_t(offset)) == 0, lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
            let failure = Self.failure("truncate", path)
            close()
            throw failure
        }
    }

    deinit { close() }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AccordError) {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let count = systemWrite(descriptor, base + written, bytes.count - written)
            if count >= 0 {
                written += count
            } else if errno != EINTR {
                throw Self.failure("write", path)
            }
        }
        startWriteback(length: bytes.count)
    }

    /// Bytes written since the last writeback hint, and where they start.
    private var unhinted = 0

    /// Asks the kernel to start writing every 4 MiB to the disk now (Linux), so the
    /// `fsync` when the request ends (on the server's network thread) has little left
    /// to wait for, as `BlobStore`'s own puts do.
    private func startWriteback(length: Int) {
        #if os(Linux)
        unhinted += length
        guard unhinted >= 4 << 20 else { return }
        let end = lseek(descriptor, 0, SEEK_CUR)
        guard end > 0 else { return }
        _ = posix_fadvise(descriptor, end - off_t(unhinted), off_t(unhinted), POSIX_FADV_DONTNEED)
        unhinted = 0
        #endif
    }

    func synchronize() throws(AccordError) {
        guard descriptor >= 0 else { return }
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw Self.failure("fsync", path) }
        }
    }

    func close() {
        guard descriptor >= 0 else { return }
        _ = systemClose(descriptor)
        descriptor = -1
    }

    private static func failure(_ operation: String, _ path: String) -> AccordError {
        let code = errno
        let full = code == ENOSPC || code == EDQUOT
        return AccordError(
            full ? .storageFull : .storageError,
            "cannot \(operation) a blob upload file: \(String(cString: strerror(code)))", details: ["path": path])
    }
}
