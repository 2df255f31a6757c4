import AccordCRDT
import Foundation

/// Reading content files (see ``BlobFileUpload`` for how they are written). Anything
/// that does not match the index record (a missing file, another length, a piece that
/// does not open, another SHA-256) is `STORAGE_CORRUPT` naming the blob, and no byte
/// counts as read until the whole content was checked.
extension BlobStore {
    /// Opens the content file of `hash` (called under the storage lock, right after
    /// reading its index record). `sealed` is what the record says, which must agree
    /// with the store's directory.
    static func openContentFile(_ hash: BlobHash, sealed: Bool, in directory: BlobDirectory?) throws(AccordError) -> PosixFile {
        guard let directory else {
            throw corrupt(hash, "its content is in a file, but this storage offers no blob directory")
        }
        guard sealed == directory.isSealed else {
            throw corrupt(
                hash, sealed ? "its content file is sealed, but this storage is not" : "its content file is not sealed")
        }
        let path = directory.contentPath(hash)
        do throws(PosixFile.Failure) {
            return try PosixFile(path: path, flags: O_RDONLY)
        } catch {
            guard error.code != ENOENT else { throw corrupt(hash, "its content file \(path) is missing") }
            throw error.accordError(.storageError, "cannot open the content file of blob \(hash)", path: path)
        }
    }

    /// Streams the file piece by piece through one reused buffer, hashing as it goes.
    func streamFile(
        _ hash: BlobHash, record: BlobIndexRecord, file: PosixFile,
        _ body: (UnsafeRawBufferPointer) throws(AccordError) -> Void
    ) throws(AccordError) -> BlobInfo {
        defer { file.closeDescriptor() }
        var reader = ContentFileReader(hash: hash, file: file)
        var hasher = try SHA256Hasher()
        if let key = directory?.sealingKey {
            try readSealed(&reader, record: record, key: key) { (piece) throws(AccordError) in
                hasher.update(piece)
                try body(piece)
            }
        } else {
            let length = try reader.length()
            guard length == record.size else {
                throw Self.corrupt(hash, "its content file has \(length) bytes, not \(record.size)")
            }
            var buffer = [UInt8](repeating: 0, count: tuning.chunkSize)
            var remaining = record.size
            while remaining > 0 {
                let count = Int(min(remaining, UInt64(buffer.count)))
                try buffer.withMutableBytes { (buffer) throws(AccordError) in
                    let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[..<count])
                    try reader.fill(piece)
                    hasher.update(UnsafeRawBufferPointer(piece))
                    try body(UnsafeRawBufferPointer(piece))
                }
                remaining -= UInt64(count)
            }
        }
        guard hasher.finish() == hash else { throw Self.corrupt(hash, "the content does not match its SHA-256") }
        return record.info(hash)
    }

    /// Opens a sealed file (``BlobFileSealing``) message by message and hands each
    /// opened piece to `body`; then checks the final message against hash and size.
    private func readSealed(
        _ reader: inout ContentFileReader, record: BlobIndexRecord, key: SecretBytes,
        _ body: (UnsafeRawBufferPointer) throws(AccordError) -> Void
    ) throws(AccordError) {
        let hash = reader.hash
        let unopenable = Self.corrupt(hash, "its sealed content file does not open: another key, changed, or truncated")
        var header = [UInt8](repeating: 0, count: BlobFileSealing.headerLength)
        try header.withMutableBytes { (header) throws(AccordError) in try reader.fill(header) }
        guard var opener = BlobFileSealing.Opener(header: header, key: key) else { throw unopenable }
        let pieceSize = UInt64(opener.pieceSize)
        let length = try reader.length()
        guard let expected = BlobFileSealing.fileLength(size: record.size, pieceSize: pieceSize), length == expected else {
            throw Self.corrupt(hash, "its sealed content file has \(length) bytes, which does not fit \(record.size)")
        }
        var sealed = [UInt8](repeating: 0, count: Int(pieceSize) + BlobFileSealing.messageOverhead)
        var opened = [UInt8](repeating: 0, count: Int(pieceSize))
        var remaining = record.size
        while remaining > 0 {
            let messageLength = Int(min(remaining, pieceSize)) + BlobFileSealing.messageOverhead
            try sealed.withMutableBytes { (sealed) throws(AccordError) in
                let message = UnsafeMutableRawBufferPointer(rebasing: sealed[..<messageLength])
                try reader.fill(message)
                try opened.withMutableBytes { (opened) throws(AccordError) in
                    guard let count = opener.open(UnsafeRawBufferPointer(message), into: opened) else { throw unopenable }
                    try body(UnsafeRawBufferPointer(rebasing: opened[..<count]))
                }
            }
            remaining -= min(remaining, pieceSize)
        }
        var final = [UInt8](repeating: 0, count: BlobFileSealing.messageOverhead)
        try final.withMutableBytes { (final) throws(AccordError) in try reader.fill(final) }
        guard opener.finish(final, hash: hash, size: record.size) else { throw unopenable }
    }
}

/// Reads exact lengths from a content file; a file shorter than its record said (it
/// shrank while being read) is `STORAGE_CORRUPT`.
private struct ContentFileReader {
    let hash: BlobHash
    let file: PosixFile

    func length() throws(AccordError) -> UInt64 {
        do throws(PosixFile.Failure) {
            return try file.size()
        } catch {
            throw error.accordError(.storageError, "cannot read the content file of blob \(hash)", path: file.path)
        }
    }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AccordError) {
        let count: Int
        do throws(PosixFile.Failure) {
            count = try file.readFully(into: buffer)
        } catch {
            throw error.accordError(.storageError, "cannot read the content file of blob \(hash)", path: file.path)
        }
        guard count == buffer.count else { throw BlobStore.corrupt(hash, "its content file ends early") }
    }
}
