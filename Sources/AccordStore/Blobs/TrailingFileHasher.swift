import AccordCRDT
import Foundation

/// Hashes a file on a thread of its own while another thread writes it front to back,
/// reading back (from the page cache) what was written so far.
///
/// Why: a download is received, written and hashed on the HTTP client's service
/// thread, one piece after the other, so the hash (about a third of that thread's
/// work) slowed the receiving itself. Hashing behind the writer takes it off that
/// path; the writer only says how far the file is written (``advance(to:)``).
///
/// What is hashed is the file's content, read back after it was written: the bytes
/// that get synced and named, so the check at the end still vouches for the stored file.
final class TrailingFileHasher: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: the fields below `condition` are read and
    // written only with `condition` locked; `descriptor` and the hasher state belong
    // to the hashing thread alone once it started.
    private let condition = NSCondition()
    /// Bytes of the file the writer has written.
    private var written: UInt64
    /// The writer said the file is complete (``finish(size:)``).
    private var complete = false
    /// The upload was given up: the thread stops without a digest.
    private var cancelled = false
    private var outcome: Result<BlobHash, AccordError>?

    private let descriptor: Int32
    private let path: String
    /// Bytes the writer last told the hashing thread about. The writer's alone (its
    /// calls come one at a time), so it is read without the lock.
    private var published: UInt64

    /// Bytes per read-back, and the step in which the writer tells the hashing thread
    /// how far the file is written: told after every received piece (64 KiB), the
    /// thread woke up for each (3,000 futex calls and as many context switches per
    /// 100 MB, on a machine whose two cores the sender and the receiver already keep
    /// busy); told per MiB, it wakes about 100 times and reads whole pieces.
    static let piece = 1 << 20

    /// Starts hashing the file at `path` after its first `offset` bytes, which
    /// `hasher` has hashed already.
    init(path: String, continuing hasher: SHA256Hasher, offset: UInt64) throws(AccordError) {
        self.path = path
        written = offset
        published = offset
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PosixFile.Failure(operation: "open", code: errno)
                .accordError(.storageError, "cannot open a blob upload file to hash it", path: path)
        }
        let thread = Thread { [self] in run(hasher, from: offset) }
        thread.name = "AccordStore.hash"
        thread.start()
    }

    /// The writer has written the file's first `size` bytes. Passed on to the hashing
    /// thread once a whole ``piece`` more is written (``finish(size:)`` passes on the rest).
    func advance(to size: UInt64) {
        guard size >= published + UInt64(Self.piece) else { return }
        published = size
        condition.lock()
        written = size
        condition.signal()
        condition.unlock()
    }

    /// The file is complete at `size` bytes: waits for the hash of all of them.
    func finish(size: UInt64) throws(AccordError) -> BlobHash {
        condition.lock()
        written = size
        complete = true
        condition.signal()
        while outcome == nil { condition.wait() }
        let result = outcome!
        condition.unlock()
        return try result.get()
    }

    /// Stops the thread without waiting for it (the upload was given up).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.signal()
        condition.unlock()
    }

    private func run(_ start: SHA256Hasher, from offset: UInt64) {
        defer { close(descriptor) }
        var hasher = start
        var hashed = offset
        var buffer = [UInt8](repeating: 0, count: Self.piece)
        while true {
            condition.lock()
            while hashed == written, !complete, !cancelled { condition.wait() }
            let (target, isComplete, isCancelled) = (written, complete, cancelled)
            condition.unlock()
            if isCancelled {
                settle(.failure(AccordError(.storageError, "the blob upload was given up", details: ["path": path])))
                return
            }
            if hashed == target, isComplete {
                settle(.success(hasher.finish()))
                return
            }
            let want = Int(min(UInt64(Self.piece), target - hashed))
            let count = buffer.withUnsafeMutableBytes { raw in pread(descriptor, raw.baseAddress!, want, off_t(hashed)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let failure = count < 0
                    ? PosixFile.Failure(operation: "pread", code: errno).accordError(.storageError, "cannot read back a blob upload file", path: path)
                    : AccordError(.storageError, "a blob upload file is shorter than was written", details: ["path": path])
                settle(.failure(failure))
                return
            }
            buffer.withUnsafeBytes { raw in hasher.update(UnsafeRawBufferPointer(rebasing: raw[..<count])) }
            hashed += UInt64(count)
        }
    }

    private func settle(_ result: Result<BlobHash, AccordError>) {
        condition.lock()
        outcome = result
        condition.broadcast()
        condition.unlock()
    }
}
