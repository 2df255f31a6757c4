import AccordCRDT
import Foundation

/// One put into a content file (see ``BlobDirectory``). The content streams into
/// `.upload-<id>` in the blob directory, hashed (and sealed) piece by piece; then,
/// in this order, which is what makes a crash harmless:
///
/// 1. the upload file is synced (`fsync`);
/// 2. under the storage lock, it is renamed to its hash name and the directory is synced;
/// 3. only then is the index record committed (with the reference, if any).
///
/// A crash before 3 leaves at worst a file no index record names, which
/// ``BlobStore/collectGarbage()`` removes; an index record never names content that is
/// not durable. Until ``finish(_:)`` the upload id is in
/// ``ActiveUploads``, so a collection in this process leaves the upload file alone.
struct BlobFileUpload: BlobContentUpload {
    private let store: BlobStore
    private let directory: BlobDirectory
    private let uploadID: String
    private let file: PosixFile
    private var hasher: SHA256Hasher
    private var size: UInt64 = 0
    private var sealer: BlobFileSealing.Sealer?
    /// Room for one sealed piece, reused.
    private var sealedPiece: [UInt8] = []
    /// Hashes on a thread of its own, reading back what was written, once
    /// ``hashInBackground()`` asked for it (plain files only).
    private var trailingHasher: TrailingFileHasher?

    init(store: BlobStore, directory: BlobDirectory) throws(AccordError) {
        self.store = store
        self.directory = directory
        hasher = try SHA256Hasher()
        try directory.prepare()
        var generator = SystemRandomNumberGenerator()
        uploadID = HexText.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        ActiveUploads.shared.insert(uploadID)
        let path = directory.uploadPath(uploadID)
        do throws(PosixFile.Failure) {
            // O_EXCL: never write through a file or link someone else put there.
            file = try PosixFile(path: path, flags: O_WRONLY | O_CREAT | O_EXCL)
        } catch {
            ActiveUploads.shared.remove(uploadID)
            throw error.accordError(.storageError, "cannot create a blob upload file", path: path)
        }
        if let key = directory.sealingKey {
            do throws(AccordError) {
                let sealer = try BlobFileSealing.Sealer(key: key, pieceSize: UInt32(store.tuning.chunkSize))
                self.sealer = sealer
                sealedPiece = [UInt8](repeating: 0, count: store.tuning.chunkSize + BlobFileSealing.messageOverhead)
                try write(sealer.header)
            } catch {
                abandon()
                throw error
            }
        }
    }

    /// Plain files take pieces as they come (a download's receive buffers, unbuffered);
    /// sealed files are cut into messages of `chunkSize`.
    var takesAnyPieceSize: Bool { sealer == nil }

    /// Adds the next piece: for sealed files at most `chunkSize` bytes, and exactly
    /// that unless it is the last.
    mutating func append(_ piece: UnsafeRawBufferPointer) throws(AccordError) {
        if let trailingHasher {
            try write(piece)
            size += UInt64(piece.count)
            trailingHasher.advance(to: size)
            return
        }
        hasher.update(piece)
        size += UInt64(piece.count)
        guard sealer != nil else { return try write(piece) }
        let length = try sealedPiece.withMutableBytes { (output) throws(AccordError) in
            try sealer!.seal(piece, into: output)
        }
        try sealedPiece.withBytes { (bytes) throws(AccordError) in
            try write(UnsafeRawBufferPointer(rebasing: bytes[..<length]))
        }
    }

    /// From now on the content is hashed behind the writes, on a thread of its own
    /// (``TrailingFileHasher``), continuing from what was hashed so far; sealed files
    /// (whose file holds ciphertext) keep hashing as they write.
    mutating func hashInBackground() throws(AccordError) {
        guard sealer == nil, trailingHasher == nil else { return }
        trailingHasher = try TrailingFileHasher(path: directory.uploadPath(uploadID), continuing: hasher, offset: size)
    }

    /// Makes the file durable under its hash name and commits the index record, or
    /// drops the file when the same content is stored already.
    mutating func finish(_ commit: BlobUploadCommit) throws(AccordError) -> BlobInfo {
        defer { abandon() }
        let hash = try trailingHasher?.finish(size: size) ?? hasher.finish()
        try commit.check(hash: hash, size: size)
        let (contentType, document) = (commit.contentType, commit.reference)
        if sealer != nil { try write(try sealer!.finish(hash: hash, size: size)) }
        // A second copy of stored content is dropped below; skip paying for its fsync.
        // (Checked again under the lock, since a delete may come in between.)
        var synced = false
        if try store.storage.withAdapter({ adapter in try BlobStore.indexRecord(hash, in: adapter) }) == nil {
            try synchronize()
            synced = true
        }
        let record = BlobIndexRecord(
            content: .file(sealed: sealer != nil), size: size, createdMilliseconds: store.nowMilliseconds(),
            contentType: contentType)
        let (directory, uploadPath) = (directory, directory.uploadPath(uploadID))
        return try store.storage.withAdapter { adapter in
            // Everything that reads the adapter comes before the rename, so once the
            // file has its name only the commit can still fail.
            let references = try document.map { document in
                try BlobStore.referenceAdditions(of: hash, document: document.rawValue, in: adapter)
            }
            var batch: [StorageOperation] = []
            var renamed = false
            let info: BlobInfo
            if let existing = try BlobStore.indexRecord(hash, in: adapter) {
                info = existing.info(hash)
            } else {
                if !synced { try synchronize() }
                let destination = directory.contentPath(hash)
                guard rename(uploadPath, destination) == 0 else {
                    throw PosixFile.Failure(operation: "rename", code: errno)
                        .accordError(.storageError, "cannot name the content file of blob \(hash)", path: destination)
                }
                do throws(AccordError) {
                    try directory.synchronize()
                } catch {
                    _ = try? directory.removeFile(hash.hex)
                    throw error
                }
                renamed = true
                batch.append(.put(.blobIndex, key: hash.hex, value: record.encoded()))
                info = record.info(hash)
            }
            batch += references ?? []
            batch += commit.alongWith
            do {
                try adapter.commit(batch)
            } catch {
                // Nothing names the new file: remove it now rather than at the next collection.
                if renamed { _ = try? directory.removeFile(hash.hex) }
                throw error
            }
            return info
        }
    }

    /// Removes the upload file (after a failure, or after ``finish`` renamed or dropped
    /// it) and ends the upload. Best effort: a file left behind is an orphan for
    /// ``BlobStore/collectGarbage()``.
    func abandon() {
        trailingHasher?.cancel()
        file.closeDescriptor()
        unlink(directory.uploadPath(uploadID))
        ActiveUploads.shared.remove(uploadID)
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws(AccordError) {
        do throws(PosixFile.Failure) {
            try file.writeAll(bytes, startingWriteback: true)
        } catch {
            throw error.accordError(.storageError, "cannot write a blob upload file", path: file.path)
        }
    }

    private func write(_ bytes: [UInt8]) throws(AccordError) {
        try bytes.withBytes { (bytes) throws(AccordError) in try write(bytes) }
    }

    private func synchronize() throws(AccordError) {
        do throws(PosixFile.Failure) {
            try file.synchronize()
        } catch {
            throw error.accordError(.storageError, "cannot sync a blob upload file", path: file.path)
        }
    }
}
