public import AccordCRDT
import Foundation

extension BlobStore {
    /// Stores the content of the file at `path`, whose SHA-256 the caller computed as it
    /// wrote the file (a server's resumable upload, hashed while it arrived), and takes
    /// the file over: afterwards nothing is left at `path`. Returns the blob's info and
    /// whether this stored new content (false: the same content was already stored, and
    /// only the reference was added).
    ///
    /// With a plain blob directory on the same file system, the file is synced and
    /// renamed to its hash name, then the index record is committed with the reference
    /// (the order ``put(contentsOfFile:contentType:referencedBy:)`` keeps), so adopting
    /// costs no second copy. Otherwise (sealed files, content in chunks, another file
    /// system) the file is streamed through a put, which hashes it again, and a
    /// different hash is `STORAGE_CORRUPT` (nothing is kept then).
    ///
    /// The caller guarantees `hash` matches the content on the fast path: it is not
    /// re-read there (reads verify it anyway).
    ///
    /// `replacingExisting`: when the content is already stored as a plain file, the new
    /// file takes its place (the same bytes, by their hash), which repairs a stored
    /// copy that was damaged on disk; readers with the old file open keep reading it.
    @discardableResult
    public func adopt(
        fileAt path: String, hash: BlobHash, contentType: String, referencedBy document: DocumentID?,
        replacingExisting: Bool = false
    ) throws(AccordError) -> (info: BlobInfo, created: Bool) {
        try Self.validateContentType(contentType)
        if let directory, !directory.isSealed,
            let adopted = try adoptByRename(path, hash, contentType, document, directory, replacing: replacingExisting)
        {
            return adopted
        }
        // Hashed before the put, so a file that is not what the caller said never gets
        // stored or referenced (the put itself cannot be undone cleanly once it added a
        // reference). This path copies anyway; one more read costs little beside it.
        let actual = try Self.hashFile(path, chunkSize: tuning.chunkSize)
        guard actual == hash else {
            throw AccordError(
                .storageCorrupt, "the file to adopt as blob \(hash) hashes to \(actual)", details: ["blob": hash.hex])
        }
        let existed = try exists(hash)
        let info = try put(contentsOfFile: path, contentType: contentType, referencedBy: document)
        unlink(path)
        return (info, !existed)
    }

    private static func hashFile(_ path: String, chunkSize: Int) throws(AccordError) -> BlobHash {
        let file: PosixFile
        do throws(PosixFile.Failure) {
            file = try PosixFile(path: path, flags: O_RDONLY)
        } catch {
            throw error.accordError(.ioError, "cannot open \(path) for reading", path: path)
        }
        var hasher = try SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = try buffer.withMutableBytes { (buffer) throws(AccordError) -> Int in
                let count: Int
                do throws(PosixFile.Failure) {
                    count = try file.readFully(into: buffer)
                } catch {
                    throw error.accordError(.ioError, "cannot read \(path)", path: path)
                }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                return count
            }
            if count == 0 { break }
        }
        return hasher.finish()
    }

    /// The fast path; nil when the rename crosses file systems (the caller copies).
    private func adoptByRename(
        _ path: String, _ hash: BlobHash, _ contentType: String, _ document: DocumentID?, _ directory: BlobDirectory,
        replacing: Bool
    ) throws(AccordError) -> (info: BlobInfo, created: Bool)? {
        try directory.prepare()
        let size: UInt64
        do throws(PosixFile.Failure) {
            let file = try PosixFile(path: path, flags: O_RDONLY)
            size = try file.size()
            try file.synchronize()
        } catch {
            throw error.accordError(.storageError, "cannot sync the file to adopt as blob \(hash)", path: path)
        }
        let record = BlobIndexRecord(
            content: .file(sealed: false), size: size, createdMilliseconds: nowMilliseconds(), contentType: contentType)
        return try storage.withAdapter { adapter -> (info: BlobInfo, created: Bool)? in
            let references = try document.map { document in
                try Self.referenceAdditions(of: hash, document: document.rawValue, in: adapter)
            } ?? []
            let destination = directory.contentPath(hash)
            if let existing = try Self.indexRecord(hash, in: adapter) {
                if replacing, existing.content == .file(sealed: false), existing.size == size {
                    guard rename(path, destination) == 0 else {
                        if errno == EXDEV { return nil }
                        throw PosixFile.Failure(operation: "rename", code: errno)
                            .accordError(.storageError, "cannot replace the content file of blob \(hash)", path: destination)
                    }
                    try directory.synchronize()
                } else {
                    unlink(path)
                }
                if !references.isEmpty { try adapter.commit(references) }
                return (existing.info(hash), false)
            }
            guard rename(path, destination) == 0 else {
                if errno == EXDEV { return nil }
                throw PosixFile.Failure(operation: "rename", code: errno)
                    .accordError(.storageError, "cannot name the content file of blob \(hash)", path: destination)
            }
            do {
                try directory.synchronize()
                try adapter.commit([.put(.blobIndex, key: hash.hex, value: record.encoded())] + references)
            } catch {
                // Nothing names the file: remove it now rather than at the next collection.
                _ = try? directory.removeFile(hash.hex)
                throw error
            }
            return (record.info(hash), true)
        }
    }
}
