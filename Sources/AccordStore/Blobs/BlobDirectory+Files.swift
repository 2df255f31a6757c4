import AccordCRDT
import Foundation

/// Names and directory operations of content files (see ``StorageCategory/blobIndex``
/// for the layout). Failures here concern the store's own files: `STORAGE_ERROR`, or
/// `STORAGE_FULL` for a full disk.
extension BlobDirectory {
    /// Files of puts in progress (or interrupted) start with this; the dot keeps them
    /// apart from hash names, which are 64 lowercase hex digits.
    static let uploadPrefix = ".upload-"

    /// Flat, one file per blob: a directory of thousands of entries is fine on every
    /// file system we target, and one level keeps a put to one directory sync.
    func contentPath(_ hash: BlobHash) -> String { "\(path)/\(hash.hex)" }

    func uploadPath(_ uploadID: String) -> String { "\(path)/\(Self.uploadPrefix)\(uploadID)" }

    /// Creates the directory when missing and syncs its parent, so the directory itself
    /// survives a crash along with the files put in it.
    func prepare() throws(AccordError) {
        if mkdir(path, 0o700) == 0 {
            let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
            do throws(PosixFile.Failure) {
                try PosixFile.synchronizeDirectory(parent)
            } catch {
                throw error.accordError(.storageError, "cannot sync the directory holding \(path)", path: parent)
            }
            return
        }
        let failure = PosixFile.Failure(operation: "mkdir", code: errno)
        var status = stat()
        guard failure.code == EEXIST, stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw failure.accordError(.storageError, "cannot create the blob directory", path: path)
        }
    }

    /// Syncs the directory, making renames and new names in it durable.
    func synchronize() throws(AccordError) {
        do throws(PosixFile.Failure) {
            try PosixFile.synchronizeDirectory(path)
        } catch {
            throw error.accordError(.storageError, "cannot sync the blob directory", path: path)
        }
    }

    /// The names in the directory; none when it does not exist (nothing was put yet).
    func names() throws(AccordError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw AccordError(.storageError, "cannot list the blob directory: \(error)", details: ["path": path])
        }
    }

    /// Removes one file; a file already gone is fine. Returns whether one was removed.
    @discardableResult
    func removeFile(_ name: String) throws(AccordError) -> Bool {
        let file = "\(path)/\(name)"
        if unlink(file) == 0 { return true }
        guard errno == ENOENT else {
            throw PosixFile.Failure(operation: "unlink", code: errno)
                .accordError(.storageError, "cannot remove a blob file", path: file)
        }
        return false
    }

    /// Removes the directory with everything in it; a missing one is fine. An adapter
    /// that offers a directory calls this from its `wipeAll()`.
    public func removeAll() throws(AccordError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw AccordError(.storageError, "cannot remove the blob directory: \(error)", details: ["path": path])
        }
    }

    /// Whether `name` is a content file name: 64 lowercase hex digits.
    static func isContentName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
