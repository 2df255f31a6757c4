import AccordCRDT
import Foundation

/// Writes an exported blob to a temporary file beside the destination and renames it
/// into place only once the content is verified and synced, so a failed read leaves
/// nothing at the destination and a crash never leaves half a file there. Failures
/// are `IO_ERROR` naming the destination (`STORAGE_FULL` for a full disk).
struct BlobFileWriter {
    private let file: PosixFile
    let temporaryPath: String
    let destination: String

    init(destination: String) throws(AccordError) {
        self.destination = destination
        let url = URL(fileURLWithPath: destination)
        let directory = url.deletingLastPathComponent().path
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        temporaryPath = "\(directory)/.\(url.lastPathComponent).\(suffix).accord-tmp"
        do throws(PosixFile.Failure) {
            // O_EXCL: never write through a file or link someone else put there.
            file = try PosixFile(path: temporaryPath, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
        } catch {
            throw error.accordError(.ioError, "cannot create a file beside \(destination)", path: destination)
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AccordError) {
        do throws(PosixFile.Failure) {
            try file.writeAll(bytes, startingWriteback: true)
        } catch {
            throw error.accordError(.ioError, "cannot write beside \(destination)", path: destination)
        }
    }

    /// Syncs (fsync) and renames the file into place, replacing any file there.
    func commit() throws(AccordError) {
        do throws(PosixFile.Failure) {
            try file.synchronize()
        } catch {
            discard()
            throw error.accordError(.ioError, "cannot sync \(temporaryPath)", path: destination)
        }
        file.closeDescriptor()
        guard rename(temporaryPath, destination) == 0 else {
            let failure = PosixFile.Failure(operation: "rename", code: errno)
            discard()
            throw failure.accordError(.ioError, "cannot move the blob into \(destination)", path: destination)
        }
    }

    /// Removes the temporary file (after a failure).
    func discard() {
        file.closeDescriptor()
        unlink(temporaryPath)
    }
}
