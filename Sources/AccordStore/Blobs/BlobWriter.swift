public import AccordCRDT

/// A put fed piece by piece by its caller (a download arriving from the network),
/// where ``BlobStore/put(contentsOfFile:contentType:referencedBy:)`` pulls from a
/// file: pieces of any size are cut into the store's chunk size through one buffer, so
/// memory stays bounded whatever the blob's size. ``finish(expected:contentType:reference:)``
/// commits only content whose SHA-256 is the one announced; anything else is dropped
/// (`BLOB_HASH_MISMATCH`) and the store is as before.
///
/// Not thread-safe: one owner feeds it (calls may come from different threads, one at a time).
package final class BlobWriter {
    private var upload: any BlobContentUpload
    private var hasher: SHA256Hasher
    private var piece: [UInt8]
    private var filled = 0
    private let chunkSize: Int
    private var isOpen = true
    package private(set) var size: Int64 = 0

    package init(store: BlobStore) throws(AccordError) {
        if let directory = store.directory {
            upload = try BlobFileUpload(store: store, directory: directory)
        } else {
            upload = try BlobUpload(store: store)
        }
        hasher = try SHA256Hasher()
        chunkSize = store.tuning.chunkSize
        piece = [UInt8](repeating: 0, count: chunkSize)
    }

    deinit { if isOpen { upload.abandon() } }

    /// Adds bytes at the end.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(AccordError) {
        guard isOpen else { throw AccordError(.invalidArgument, "the blob writer was finished") }
        hasher.update(bytes)
        size += Int64(bytes.count)
        var offset = 0
        while offset < bytes.count {
            let count = min(chunkSize - filled, bytes.count - offset)
            piece.withUnsafeMutableBytes { target in
                target.baseAddress!.advanced(by: filled).copyMemory(from: bytes.baseAddress!.advanced(by: offset), byteCount: count)
            }
            filled += count
            offset += count
            if filled == chunkSize { try flush() }
        }
    }

    /// Commits the content under `expected` if it hashes to it and has `expectedSize`
    /// bytes (when given); else drops it and throws `BLOB_HASH_MISMATCH`.
    package func finish(
        expected: BlobHash, expectedSize: Int64? = nil, contentType: String, reference: DocumentID?
    ) throws(AccordError) -> BlobInfo {
        guard isOpen else { throw AccordError(.invalidArgument, "the blob writer was finished") }
        let actual = hasher.finish()
        guard actual == expected, expectedSize.map({ $0 == size }) ?? true else {
            abandon()
            throw AccordError(
                .blobHashMismatch, "the content of blob \(expected) hashes to \(actual) (\(size) bytes)",
                details: ["blob": expected.hex, "actual": actual.hex, "size": String(size)])
        }
        isOpen = false
        do throws(AccordError) {
            if filled > 0 { try flush() }
            return try upload.finish(contentType: contentType, reference: reference)
        } catch {
            upload.abandon()
            throw error
        }
    }

    /// Drops what was written.
    package func abandon() {
        guard isOpen else { return }
        isOpen = false
        upload.abandon()
    }

    private func flush() throws(AccordError) {
        // Also called by finish after it closed the writer, for the last piece.
        let count = filled
        filled = 0
        try piece.withBytes { (all) throws(AccordError) in
            try upload.append(UnsafeRawBufferPointer(rebasing: all[..<count]))
        }
    }
}
