import AccordCRDT
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a file beside the database, held while a
/// ``Database`` is open, so a second `Database` on the same files (another process, an
/// app extension, or this process) is refused with `DATABASE_LOCKED` instead of writing
/// beside the first. The kernel drops the lock when the process dies, so a crash never
/// leaves the database locked.
final class DatabaseFileLock {
    private var descriptor: Int32

    init(path: String) throws(AccordError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw AccordError(.storageError, "cannot open the lock file \(path): errno \(errno)", details: ["path": path])
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK {
                throw AccordError(
                    .databaseLocked, "the database is open in another Database instance or process",
                    details: ["path": path])
            }
            throw AccordError(.storageError, "cannot lock \(path): errno \(code)", details: ["path": path])
        }
        descriptor = fd
    }

    /// Releases the lock (closing the descriptor releases it). Idempotent.
    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
