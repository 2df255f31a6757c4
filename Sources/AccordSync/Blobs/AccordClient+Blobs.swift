public import AccordCRDT
public import AccordStore
public import Foundation

/// Blobs that travel with their documents (`docs/blobs.md`): puts stored locally and
/// queued for upload, reads from this device or downloaded on demand and verified,
/// the download cache with pins. The `Accord` module's `document.blobs` calls these.
extension AccordClient {
    // MARK: Setting up

    /// Sets how blobs move (cache cap, upload concurrency, retries); applies the cache
    /// cap at once.
    public func configureBlobs(_ options: BlobOptions) throws(AccordError) {
        try blobs().options = options
        try enforceBlobCache()
        pumpBlobUploads()
    }

    /// The client's blob state, made on first use: loads the upload queue, the pins
    /// and the use order from the store, and starts following the open documents.
    func blobs() throws(AccordError) -> ClientBlobs {
        if let blobState { return blobState }
        let state = ClientBlobs(
            store: try BlobStore(storage: store.storage, tuning: BlobStore.Tuning(inlineLimit: BlobStore.Tuning.smallBlobInlineLimit)))
        try store.storage.withAdapter { adapter in
            for key in try adapter.keys(in: BlobClientCategories.uploads) {
                guard let bytes = try adapter.read(BlobClientCategories.uploads, key: key) else { continue }
                let entry = try BlobUploadEntry.decode(bytes, key: key)
                state.queue[key] = entry
                state.uploadStates[key] = .waiting(notBefore: 0, failures: 0)
                state.uploadOrderIsStale = true
            }
            state.pinned = Set(try adapter.keys(in: BlobClientCategories.pins))
            state.pinnedDocuments = Set(try adapter.keys(in: BlobClientCategories.pinnedDocuments).compactMap(DocumentID.init(rawValue:)))
        }
        blobState = state
        addDocumentObserver(state)
        return state
    }

    /// Starts the blob side with the client, so uploads queued by an earlier run resume
    /// as their documents open. A failure is reported, not thrown: documents work without it.
    func activateBlobs() {
        do throws(AccordError) {
            _ = try blobs()
        } catch {
            bus.emit(.failure(nil, error))
        }
    }

    // MARK: Putting

    /// Stores `data` as a blob of an open document and queues it for upload; returns
    /// the attachment value to put in the document's content. Durable when it returns.
    /// - Throws: `DOCUMENT_NOT_OPEN`, `INVALID_ARGUMENT` (content type), the store's errors.
    public func putBlob(
        _ id: DocumentID, data: [UInt8], contentType: String, name: String? = nil
    ) throws(AccordError) -> BlobRef {
        let blob = try BlobRef(contentType: contentType, data: data, name: name)
        try storeBlobs(id, [blob]) { store, queueEntries throws(AccordError) in
            // The queue entry commits with the content: both are durable, or neither.
            _ = try store.put(data, contentType: contentType, referencedBy: id, committingWith: queueEntries)
        }
        return blob
    }

    /// Stores many blobs of an open document and queues their uploads, like
    /// ``putBlob(_:data:contentType:name:)`` for each, but small ones (16 KiB or less)
    /// share one commit, and so one sync, with their queue entries: the way to attach
    /// many small files at once. Returns the attachment values in order.
    /// - Throws: as ``putBlob(_:data:contentType:name:)``; when it throws, none of the
    ///   small blobs is stored or queued (larger ones stored before may be).
    public func putBlobs(
        _ id: DocumentID, _ items: [(data: [UInt8], contentType: String, name: String?)]
    ) throws(AccordError) -> [BlobRef] {
        var blobs: [BlobRef] = []
        var small: [(blob: BlobRef, content: BlobContent)] = []
        let limit = BlobStore.Tuning.smallBlobInlineLimit
        for item in items {
            if item.data.count > limit {
                // Large content pays for its own file and syncs whichever way it goes.
                blobs.append(try putBlob(id, data: item.data, contentType: item.contentType, name: item.name))
            } else {
                let blob = try BlobRef(contentType: item.contentType, data: item.data, name: item.name)
                blobs.append(blob)
                small.append((blob, BlobContent(item.data, contentType: item.contentType)))
            }
        }
        if !small.isEmpty {
            try storeBlobs(id, small.map(\.blob)) { store, queueEntries throws(AccordError) in
                _ = try store.putAll(small.map(\.content), referencedBy: id, committingWith: queueEntries)
            }
        }
        return blobs
    }

    /// Stores a file's content (streamed, any size) as a blob of an open document and
    /// queues it for upload. `name` defaults to the file's name.
    /// - Throws: `DOCUMENT_NOT_OPEN`, `IO_ERROR`, `INVALID_ARGUMENT`, the store's errors.
    public func putBlob(
        _ id: DocumentID, fileURL: URL, contentType: String, name: String? = nil
    ) throws(AccordError) -> BlobRef {
        let blob = try BlobRef(contentType: contentType, fileURL: fileURL, name: name)
        try storeBlobs(id, [blob]) { store, queueEntries throws(AccordError) in
            // Queued first, then stored, so a crash in between leaves a queued upload
            // without content (dropped when it runs), never content the queue forgot.
            if !queueEntries.isEmpty { try store.storage.withAdapter { try $0.commit(queueEntries) } }
            do throws(AccordError) {
                let info = try store.put(contentsOfFile: fileURL.path, contentType: contentType, referencedBy: id)
                guard info.hash.hex == blob.hash else {
                    // The file changed between hashing and storing: keep nothing queued for it.
                    throw AccordError(
                        .ioError, "\(fileURL.path) changed while it was being stored", details: ["path": fileURL.path])
                }
            } catch {
                let removals = queueEntries.compactMap { operation -> StorageOperation? in
                    guard case .put(let category, let key, _) = operation else { return nil }
                    return .delete(category, key: key)
                }
                if !removals.isEmpty { try? store.storage.withAdapter { try $0.commit(removals) } }
                throw error
            }
        }
        return blob
    }

    /// Stores blobs through `put`, which gets the queue entries to commit (with the
    /// content, or before it), then queues their uploads in memory and starts them.
    private func storeBlobs(
        _ id: DocumentID, _ refs: [BlobRef], _ put: (BlobStore, [StorageOperation]) throws(AccordError) -> Void
    ) throws(AccordError) {
        let document = try openDocument(id)
        let state = try blobs()
        var entries: [BlobUploadEntry] = []
        if !document.machine.localOnly {
            let queuedAt = Self.wallClockMilliseconds()
            var keys = Set<String>()
            for blob in refs {
                let entry = BlobUploadEntry(
                    hash: blob.hash, documentID: id.rawValue, size: blob.size, contentType: blob.contentType,
                    queuedAt: queuedAt)
                guard state.queue[entry.key] == nil, keys.insert(entry.key).inserted else { continue }
                entries.append(entry)
            }
            // Queued again before a finished upload's entry was removed: keep the new one.
            state.finishedKeys.removeAll { keys.contains($0) }
        }
        var newBytes: Int64 = 0
        var seen = Set<String>()
        for blob in refs where seen.insert(blob.hash).inserted {
            if try !state.store.exists(blob.blobHash) { newBytes += blob.size }
        }
        try put(state.store, entries.map { .put(BlobClientCategories.uploads, key: $0.key, value: $0.encoded()) })
        if state.storedBytes != nil { state.storedBytes! += newBytes }
        for entry in entries {
            state.queue[entry.key] = entry
            state.uploadStates[entry.key] = .waiting(notBefore: 0, failures: 0)
            state.fresh.insert(entry.key)
            state.uploadOrderIsStale = true
        }
        for blob in refs { recordBlobUse(blob.hash) }
        try enforceBlobCache()
        pumpBlobUploads()
    }

    // MARK: Reading

    /// A blob's bytes: from this device, or downloaded (and kept) when `waitForLoad`
    /// allows it. For blobs, `.network` and `.localElseNetwork` both read the local
    /// copy when there is one (content named by its hash never changes).
    /// - Throws: `BLOB_UNAVAILABLE_OFFLINE` (`.local` without a local copy, or the
    ///   client is pinned offline), `NETWORK_ERROR` (server unreachable),
    ///   `NETWORK_TIMEOUT`, `BLOB_HASH_MISMATCH`, the server's refusal (`BLOB_NOT_FOUND`,
    ///   `DOC_ACCESS_DENIED`, ...), `STORAGE_CORRUPT`.
    public func blobData(
        _ id: DocumentID, _ blob: BlobRef, waitForLoad: WaitForLoad = .localElseNetwork, timeout: Duration? = nil
    ) async throws(AccordError) -> [UInt8] {
        try await ensureBlobLocal(id, blob, waitForLoad: waitForLoad, timeout: timeout)
        let bytes = try blobs().store.get(blob.blobHash)
        recordBlobUse(blob.hash)
        return bytes
    }

    /// Writes a blob's content to `url` (verified, renamed into place only when
    /// complete), downloading it first if needed as ``blobData(_:_:waitForLoad:timeout:)`` does.
    public func exportBlob(
        _ id: DocumentID, _ blob: BlobRef, to url: URL, waitForLoad: WaitForLoad = .localElseNetwork,
        timeout: Duration? = nil
    ) async throws(AccordError) {
        try await ensureBlobLocal(id, blob, waitForLoad: waitForLoad, timeout: timeout)
        _ = try blobs().store.export(blob.blobHash, toFile: url.path)
        recordBlobUse(blob.hash)
    }

    /// Whether the blob's content is on this device.
    public func hasBlobLocally(_ blob: BlobRef) throws(AccordError) -> Bool {
        try blobs().store.exists(blob.blobHash)
    }

    // MARK: Pins

    /// Keeps a blob on this device (downloading it now if needed): never evicted until
    /// ``unpinBlob(_:_:)``.
    public func pinBlob(_ id: DocumentID, _ blob: BlobRef) async throws(AccordError) {
        let state = try blobs()
        if !state.pinned.contains(blob.hash) {
            try store.storage.withAdapter { try $0.commit([.put(BlobClientCategories.pins, key: blob.hash, value: [])]) }
            state.pinned.insert(blob.hash)
        }
        try await ensureBlobLocal(id, blob, waitForLoad: .localElseNetwork, timeout: nil)
    }

    /// Lets the cache evict a pinned blob again.
    public func unpinBlob(_ blob: BlobRef) throws(AccordError) {
        let state = try blobs()
        guard state.pinned.remove(blob.hash) != nil else { return }
        try store.storage.withAdapter { try $0.commit([.delete(BlobClientCategories.pins, key: blob.hash)]) }
        try enforceBlobCache()
    }

    /// Keeps every attachment of a document on this device: fetched as soon as the
    /// content references it (also when a remote update brings it), never evicted.
    public func pinBlobs(of id: DocumentID) throws(AccordError) {
        let state = try blobs()
        guard !state.pinnedDocuments.contains(id) else { return }
        try store.storage.withAdapter { try $0.commit([.put(BlobClientCategories.pinnedDocuments, key: id.rawValue, value: [])]) }
        state.pinnedDocuments.insert(id)
        if let document = documents[id] { prefetch(id, document.stored.doc.attachments()) }
    }

    /// Ends ``pinBlobs(of:)``: the document's attachments are fetched on first read
    /// again, and may be evicted.
    public func unpinBlobs(of id: DocumentID) throws(AccordError) {
        let state = try blobs()
        guard state.pinnedDocuments.remove(id) != nil else { return }
        try store.storage.withAdapter { try $0.commit([.delete(BlobClientCategories.pinnedDocuments, key: id.rawValue)]) }
        try enforceBlobCache()
    }

    // MARK: The server's list, deleting

    /// The blobs the server holds for the document.
    /// - Throws: `NETWORK_ERROR`, `NETWORK_TIMEOUT`, the server's refusal.
    public func listBlobs(_ id: DocumentID) async throws(AccordError) -> [RemoteBlobInfo] {
        let body = try await send(ServerCall(.get, ["v1", "documents", id.rawValue, "blobs"]))
        return try RemoteBlobInfo.decodeList(body)
    }

    /// Removes the document's reference to a blob on the server (its content goes once
    /// no document references it) and drops a pending upload of it. The attachment
    /// value in the content is the app's to remove.
    /// - Throws: `NETWORK_ERROR`, `NETWORK_TIMEOUT`, the server's refusal.
    public func deleteBlob(_ id: DocumentID, _ blob: BlobRef) async throws(AccordError) {
        let state = try blobs()
        let key = BlobUploadEntry.key(hash: blob.hash, document: id.rawValue)
        if state.queue[key] != nil {
            try store.storage.withAdapter { try $0.commit([.delete(BlobClientCategories.uploads, key: key)]) }
            state.queue[key] = nil
            if state.uploadStates[key] != .running { state.uploadStates[key] = nil }
        }
        do throws(AccordError) {
            _ = try await send(ServerCall(.delete, ["v1", "documents", id.rawValue, "blobs", blob.hash]))
        } catch where error.code == .blobNotFound {
            // Not on the server: nothing more to remove there.
        }
        if try state.store.exists(blob.blobHash), documents[id]?.stored.doc.referencesAttachment(blob.hash) != true {
            try state.store.removeReference(blob.blobHash, document: id)
        }
    }

    /// The uploads still queued for a document (hashes), oldest first.
    public func pendingBlobUploads(_ id: DocumentID) throws(AccordError) -> [String] {
        try blobs().queue.values.filter { $0.documentID == id.rawValue }.sorted { $0.queuedAt < $1.queuedAt }.map(\.hash)
    }

    // MARK: References

    /// Gives each attachment of a document that opens, stored here, its reference.
    /// References are removed only when an attachment value leaves the content
    /// (``applyAttachmentChanges()``), never for stored blobs the content does not show
    /// as attachments: other layers reference blobs of the same document in their own
    /// format (AccordDatabase's blob properties), and those must stay referenced.
    func reconcileReferences(_ id: DocumentID, attachments: [BlobRef]) {
        do throws(AccordError) {
            let state = try blobs()
            for blob in attachments where try state.store.exists(blob.blobHash) {
                try state.store.addReference(blob.blobHash, document: id)
            }
            if state.pinnedDocuments.contains(id) { prefetch(id, attachments) }
        } catch {
            bus.emit(.failure(id, error))
        }
    }

    /// Applies the attachment changes open documents made since the last call.
    func applyAttachmentChanges() {
        guard let state = blobState, !state.pendingChanges.isEmpty else { return }
        let changes = state.pendingChanges
        state.pendingChanges.removeAll()
        for (id, change) in changes {
            do throws(AccordError) {
                for hex in change.added {
                    let hash = try BlobHash(hex: hex)
                    if try state.store.exists(hash) { try state.store.addReference(hash, document: id) }
                }
                for hex in change.removed {
                    let hash = try BlobHash(hex: hex)
                    guard state.queue[BlobUploadEntry.key(hash: hex, document: id.rawValue)] == nil else { continue }
                    if try state.store.exists(hash) { try state.store.removeReference(hash, document: id) }
                }
                if state.pinnedDocuments.contains(id), !change.added.isEmpty, let document = documents[id] {
                    prefetch(id, document.stored.doc.attachments().filter { change.added.contains($0.hash) })
                }
            } catch {
                bus.emit(.failure(id, error))
            }
        }
    }

    /// Downloads attachments of a pinned document in the background.
    private func prefetch(_ id: DocumentID, _ attachments: [BlobRef]) {
        for blob in attachments {
            Task { [weak self] in
                guard let self else { return }
                try? await self.ensureBlobLocal(id, blob, waitForLoad: .localElseNetwork, timeout: nil)
            }
        }
    }

    // MARK: The cache

    /// Notes a use of a blob for the LRU order, in memory: a blob not used in this
    /// session counts as used when it was stored (put or downloaded), which keeps a
    /// read from paying for a commit.
    func recordBlobUse(_ hash: String) {
        blobState?.lastUsed[hash] = Self.wallClockMilliseconds()
    }

    /// Evicts least recently used blobs, never kept ones, until the content is under
    /// `cacheBytes`; each eviction is a ``BlobUnavailableEvent`` (`evicted`).
    func enforceBlobCache() throws(AccordError) {
        let state = try blobs()
        guard let cap = state.options.cacheBytes else { return }
        if let known = state.storedBytes, known <= cap { return }
        let stored = try state.store.list()
        state.storedBytes = stored.reduce(0) { $0 + $1.size }
        guard state.storedBytes! > cap else { return }
        var keep = state.keptHashes
        for id in state.pinnedDocuments {
            if let document = documents[id] { keep.formUnion(document.stored.doc.attachments().map(\.hash)) }
            keep.formUnion(try state.store.blobs(referencedBy: id).map(\.hash.hex))
        }
        keep.formUnion(state.downloads.keys)
        // A local-only document's blobs exist nowhere else: never evicted.
        for metadata in try store.documents() where metadata.localOnly {
            keep.formUnion(try state.store.blobs(referencedBy: metadata.id).map(\.hash.hex))
        }
        let candidates = stored.map { info in
            BlobCachePolicy.Candidate(
                hash: info.hash.hex, size: info.size,
                lastUsed: state.lastUsed[info.hash.hex] ?? Int64(info.created.timeIntervalSince1970 * 1000))
        }
        for hash in BlobCachePolicy.evictions(candidates, keep: keep, cap: cap) {
            let blobHash = try BlobHash(hex: hash)
            let size = candidates.first { $0.hash == hash }?.size ?? 0
            try state.store.delete(blobHash)
            state.lastUsed[hash] = nil
            state.storedBytes! -= size
            bus.emit(.blob(.unavailable(BlobUnavailableEvent(documentID: nil, hash: hash, reason: .evicted))))
        }
    }

    static func wallClockMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}

/// One blob as the server lists it for a document.
public struct RemoteBlobInfo: Hashable, Sendable {
    public var hash: String
    public var size: Int64
    public var contentType: String
    /// As the server wrote it (milliseconds since 1970, or a timestamp string).
    public var createdAt: String?

    static func decodeList(_ body: [UInt8]) throws(AccordError) -> [RemoteBlobInfo] {
        guard let text = String(validating: body, as: UTF8.self), let root = try? AnyValue(jsonText: text),
            case .array(let items)? = root.objectValue?["blobs"]
        else {
            throw AccordError(.unexpectedResponse, "the server's blob list is not {\"blobs\":[...]}")
        }
        var out: [RemoteBlobInfo] = []
        for item in items {
            guard let object = item.objectValue, let hash = object["blobId"]?.stringValue,
                let size = object["size"]?.intValue
            else {
                throw AccordError(.unexpectedResponse, "an entry of the server's blob list lacks blobId or size")
            }
            let created: String? =
                switch object["createdAt"] {
                case .string(let text)?: text
                case .int(let number)?: String(number)
                case .double(let number)?: String(number)
                default: nil
                }
            out.append(
                RemoteBlobInfo(
                    hash: hash, size: size, contentType: object["contentType"]?.stringValue ?? BlobRef.defaultContentType,
                    createdAt: created))
        }
        return out
    }
}
