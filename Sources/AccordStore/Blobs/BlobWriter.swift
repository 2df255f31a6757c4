public import AccordCRDT

/// A put fed piece by piece by its caller (a download arriving from the network),
/// where ``BlobStore/put(contentsOfFile:contentType:referencedBy:)`` pulls from a
/// file. Memory stays bounded whatever the blob's size: content up to the store's
/// ``BlobStore/Tuning/inlineLimit`` is held until it is known to be small (then it
/// goes into the storage in one commit); beyond that the upload starts, and plain
/// content files take each piece as it comes, with no copy, while chunks and sealed
/// files are cut into the store's chunk size through one buffer.
///
/// The upload hashes the content as it is written, once: ``finish(expected:expectedSize:contentType:reference:)``
/// compares that hash before anything is committed, and anything else is dropped
/// (`BLOB_HASH_MISMATCH`) with the store as before.
///
/// Not thread-safe: one owner feeds it (calls may come from different threads, one at a time).
package final class BlobWriter {
    let store: BlobStore
    /// Nil while everything written so far is held in `held` (it may still be small).
    private var upload: (any BlobContentUpload)?
    /// Bytes not handed to the upload yet: the small prefix, or a partial chunk.
    private var held: [UInt8] = []
    private var isOpen = true
    package private(set) var size: Int64 = 0
    /// Whether the upload hashes behind the writes on a thread of its own (asked for
    /// once the content passes ``backgroundHashingFrom``).
    private var hashesInBackground = false
    /// Past this many bytes the content is hashed on a thread of its own (where the
    /// store can: plain content files), so the thread feeding the writer (a network
    /// service thread) only writes. Below it a thread would cost more than it saves.
    package static let backgroundHashingFrom: Int64 = 1 << 20

    package init(store: BlobStore) throws(AccordError) {
        self.store = store
        // Stores without inlining start the upload now, as before: a failure to
        // create its file shows at once, not at the first piece past the limit.
        if store.directory != nil, store.tuning.inlineLimit == 0 { upload = try store.makeUpload(size: Int.max) }
    }

    deinit { if isOpen { upload?.abandon() } }

    /// Adds bytes at the end.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(AccordError) {
        guard isOpen else { throw AccordError(.invalidArgument, "the blob writer was finished") }
        size += Int64(bytes.count)
        guard var upload else {
            if held.count + bytes.count <= store.tuning.inlineLimit {
                held.append(contentsOf: bytes)
                return
            }
            // Past the inline limit: the content goes where large content goes.
            var started = try store.makeUpload(size: Int.max)
            let prefix = held
            held = []
            do throws(AccordError) {
                try prefix.withBytes { (prefix) throws(AccordError) in try feed(&started, prefix) }
                try feed(&started, bytes)
            } catch {
                started.abandon()
                throw error
            }
            self.upload = started
            return
        }
        // Taken out while it changes, so its hasher's storage is not copied per piece.
        self.upload = nil
        defer { self.upload = upload }
        try feed(&upload, bytes)
        if !hashesInBackground, size >= Self.backgroundHashingFrom {
            hashesInBackground = true
            try upload.hashInBackground()
        }
    }

    /// Commits the content under `expected` if it hashes to it and has `expectedSize`
    /// bytes (when given); else drops it and throws `BLOB_HASH_MISMATCH`.
    package func finish(
        expected: BlobHash, expectedSize: Int64? = nil, contentType: String, reference: DocumentID?
    ) throws(AccordError) -> BlobInfo {
        guard isOpen else { throw AccordError(.invalidArgument, "the blob writer was finished") }
        isOpen = false
        var upload: any BlobContentUpload
        if let started = self.upload { upload = started } else { upload = try store.makeUpload(size: held.count) }
        self.upload = nil
        do throws(AccordError) {
            if !held.isEmpty {
                try held.withBytes { (rest) throws(AccordError) in try upload.append(rest) }
                held = []
            }
            let commit = BlobUploadCommit(
                contentType: contentType, reference: reference, expected: expected,
                expectedSize: expectedSize.map { UInt64(max(0, $0)) })
            return try upload.finish(commit)
        } catch {
            upload.abandon()
            throw error
        }
    }

    /// Whether everything written is still held in memory (no upload started), so the
    /// content can be stored together with other writers' (``finishAll(_:store:)``).
    var isHeldWhole: Bool { isOpen && upload == nil }

    /// Ends a writer that ``isHeldWhole``, handing over what it held.
    func takeHeld() -> [UInt8] {
        isOpen = false
        defer { held = [] }
        return held
    }

    /// Drops what was written.
    package func abandon() {
        guard isOpen else { return }
        isOpen = false
        upload?.abandon()
        held = []
    }

    /// Hands `bytes` on: as they are to an upload that takes any piece size, else
    /// through `held`, a full chunk at a time.
    private func feed(_ upload: inout any BlobContentUpload, _ bytes: UnsafeRawBufferPointer) throws(AccordError) {
        if upload.takesAnyPieceSize { return try upload.append(bytes) }
        let chunkSize = store.tuning.chunkSize
        var offset = 0
        while offset < bytes.count {
            let count = min(chunkSize - held.count, bytes.count - offset)
            held.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
            offset += count
            if held.count == chunkSize {
                try held.withBytes { (chunk) throws(AccordError) in try upload.append(chunk) }
                held.removeAll(keepingCapacity: true)
            }
        }
    }
}
