import AccordCRDT
import Foundation

/// An open file descriptor with the few calls blob files need, each retried on `EINTR`
/// and looping over short reads and writes.
///
/// Why not `FileHandle`: its reads return a fresh `Data` per call and its writes take a
/// `DataProtocol`, so a 100 MB blob costs an allocation (and its page faults) per piece;
/// these calls read into and write from one buffer the caller reuses.
final class PosixFile {
    /// A failed system call: which one and its `errno`, for the caller to turn into the
    /// right ``AccordError`` (see ``accordError(_:_:path:)``).
    struct Failure: Error {
        var operation: String
        var code: Int32

        var reason: String { String(cString: strerror(code)) }

        /// `STORAGE_FULL` for a full disk or quota, else `fallback` (`IO_ERROR` for files
        /// the caller named, `STORAGE_ERROR` for the store's own).
        func accordError(_ fallback: ErrorCode, _ message: String, path: String) -> AccordError {
            let full = code == ENOSPC || code == EDQUOT
            return AccordError(full ? .storageFull : fallback, "\(message): \(operation): \(reason)", details: ["path": path])
        }
    }

    let path: String
    private(set) var descriptor: Int32
    /// Bytes written through ``writeAll(_:startingWriteback:)``: the offset of the next
    /// write for files written front to back.
    private(set) var bytesWritten: UInt64 = 0
    /// Bytes written with `startingWriteback` whose writeback was not asked for yet.
    private var unhinted = 0
    /// Writeback is asked for per this many bytes: pieces as small as a network
    /// receive buffer (64 KiB) would otherwise cost an extra system call each.
    static let writebackStep = 1 << 20

    /// Opens `path` with `flags` (`O_CLOEXEC` is added); `mode` applies when creating.
    init(path: String, flags: Int32, mode: mode_t = 0o600) throws(Failure) {
        self.path = path
        while true {
            let descriptor = open(path, flags | O_CLOEXEC, mode)
            if descriptor >= 0 {
                self.descriptor = descriptor
                return
            }
            if errno != EINTR { throw Failure(operation: "open", code: errno) }
        }
    }

    deinit { closeDescriptor() }

    /// Fills `buffer` from the current offset; fewer bytes only at the end of the file
    /// (pipes and network file systems may return less per call, and callers rely on
    /// full pieces). Returns the count read, 0 at the end.
    func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let count = read(descriptor, base + filled, buffer.count - filled)
            if count > 0 {
                filled += count
            } else if count == 0 {
                break
            } else if errno != EINTR {
                throw Failure(operation: "read", code: errno)
            }
        }
        return filled
    }

    /// Writes all of `bytes` at the current offset; with `startingWriteback`, asks for
    /// them to go to the disk now (``startWriteback(offset:length:)``), once per
    /// ``writebackStep`` bytes.
    func writeAll(_ bytes: UnsafeRawBufferPointer, startingWriteback: Bool = false) throws(Failure) {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let count = write(descriptor, base + written, bytes.count - written)
            if count >= 0 {
                written += count
            } else if errno != EINTR {
                throw Failure(operation: "write", code: errno)
            }
        }
        bytesWritten += UInt64(bytes.count)
        guard startingWriteback else { return }
        unhinted += bytes.count
        if unhinted >= Self.writebackStep {
            startWriteback(offset: bytesWritten - UInt64(unhinted), length: unhinted)
            unhinted = 0
        }
    }

    /// Asks the kernel to start writing `length` bytes from `offset` to the disk now,
    /// without waiting. A long file written then synced once would otherwise reach the
    /// disk only in that final `fsync`, after all the reading and hashing; started
    /// piece by piece, the disk works while the CPU hashes, and the final `fsync` has
    /// little left. Linux starts the writeback in `posix_fadvise(POSIX_FADV_DONTNEED)`
    /// (pages still dirty or being written stay cached); elsewhere this does nothing.
    func startWriteback(offset: UInt64, length: Int) {
        #if os(Linux)
        _ = posix_fadvise(descriptor, off_t(offset), off_t(length), POSIX_FADV_DONTNEED)
        #endif
    }

    /// `fsync`: the content (and the size) is on the disk when this returns.
    func synchronize() throws(Failure) {
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw Failure(operation: "fsync", code: errno) }
        }
    }

    /// The file's size in bytes (`fstat`).
    func size() throws(Failure) -> UInt64 {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(operation: "fstat", code: errno) }
        return UInt64(status.st_size)
    }

    /// Closes now rather than at release; later calls fail with `EBADF`.
    func closeDescriptor() {
        guard descriptor >= 0 else { return }
        _ = close(descriptor)
        descriptor = -1
    }

    /// Makes the entries of the directory at `path` durable (a rename or a new file in
    /// it): POSIX only promises a name survives a crash once its directory is synced.
    static func synchronizeDirectory(_ path: String) throws(Failure) {
        try PosixFile(path: path, flags: O_RDONLY | O_DIRECTORY).synchronize()
    }
}
