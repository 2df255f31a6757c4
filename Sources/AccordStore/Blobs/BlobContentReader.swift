public import AccordCRDT
import Foundation

/// Random access to one blob's plain content file, for a server that sends a blob (or
/// a range of it) piece by piece as its socket takes it, instead of in one
/// ``BlobStore/stream(_:_:)`` pass. Bytes read here are not verified as they are read:
/// ``verify()`` hashes the whole file, and ``identity`` names the file's current state
/// so a caller can remember a verification and redo it once the file changed.
///
/// The file is opened under the storage lock with its index record, so a delete after
/// opening does not cut a read short (the open descriptor keeps the content).
public final class BlobContentReader: @unchecked Sendable {
    // @unchecked: the descriptor is only read with pread, which keeps no shared offset.
    public let info: BlobInfo
    private let file: PosixFile

    /// What changes whenever the file's bytes do: device, inode, size, and the
    /// modification and status-change times. The status-change time (ctime) is set by
    /// the kernel on every write and cannot be set back by a process, so content
    /// altered in place always gets a new identity.
    public let identity: [Int64]

    init(info: BlobInfo, file: PosixFile) throws(AccordError) {
        self.info = info
        self.file = file
        var status = stat()
        guard fstat(file.descriptor, &status) == 0 else {
            throw PosixFile.Failure(operation: "fstat", code: errno)
                .accordError(.storageError, "cannot stat the content file of blob \(info.hash)", path: file.path)
        }
        #if canImport(Darwin)
        let (mtime, ctime) = (status.st_mtimespec, status.st_ctimespec)
        #else
        let (mtime, ctime) = (status.st_mtim, status.st_ctim)
        #endif
        identity = [
            Int64(status.st_dev), Int64(status.st_ino), Int64(status.st_size), Int64(mtime.tv_sec), Int64(mtime.tv_nsec),
            Int64(ctime.tv_sec), Int64(ctime.tv_nsec),
        ]
        guard status.st_size == info.size else {
            throw BlobStore.corrupt(info.hash, "its content file has \(status.st_size) bytes, not \(info.size)")
        }
    }

    /// Fills `buffer` from `offset`; fewer bytes only at the end of the file. A file
    /// that became shorter than its record is `STORAGE_CORRUPT`.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(AccordError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let count = pread(file.descriptor, base + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if count > 0 {
                filled += count
            } else if count == 0 {
                break
            } else if errno != EINTR {
                throw PosixFile.Failure(operation: "pread", code: errno)
                    .accordError(.storageError, "cannot read the content file of blob \(info.hash)", path: file.path)
            }
        }
        if filled < buffer.count, offset + Int64(filled) < info.size {
            throw BlobStore.corrupt(info.hash, "its content file ends early")
        }
        return filled
    }

    /// Hashes the whole file and compares it with the blob's name: `STORAGE_CORRUPT`
    /// when it differs.
    public func verify() throws(AccordError) {
        var hasher = try SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while offset < info.size {
            let count = try buffer.withMutableBytes { (buffer) throws(AccordError) in
                let count = try read(at: offset, into: buffer)
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                return count
            }
            guard count > 0 else { throw BlobStore.corrupt(info.hash, "its content file ends early") }
            offset += Int64(count)
        }
        guard hasher.finish() == info.hash else {
            throw BlobStore.corrupt(info.hash, "the content does not match its SHA-256")
        }
    }
}

extension BlobStore {
    /// A reader of the blob's content file, or nil when its content is not a plain file
    /// (sealed, or chunks in the adapter): read those with ``forEachChunk(of:_:)``.
    /// `BLOB_NOT_FOUND` when not stored; `STORAGE_CORRUPT` when the file is missing or
    /// has another size than its record.
    public func contentReader(_ hash: BlobHash) throws(AccordError) -> BlobContentReader? {
        let directory = directory
        let opened = try storage.withAdapter { adapter throws -> (BlobIndexRecord, PosixFile)? in
            guard let record = try Self.indexRecord(hash, in: adapter) else { throw Self.notFound(hash) }
            guard case .file(let sealed) = record.content, !sealed, directory?.isSealed == false else { return nil }
            return (record, try Self.openContentFile(hash, sealed: false, in: directory))
        }
        guard let (record, file) = opened else { return nil }
        return try BlobContentReader(info: record.info(hash), file: file)
    }
}
