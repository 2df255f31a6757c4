import AccordCRDT
import AccordNet
import AccordStore
import Foundation

/// The upload queue: entries in the store (``BlobClientCategories/uploads``) until the
/// server holds the blob, run in the background a few at a time, oldest first, each
/// resuming where the server's copy ends (`HEAD` tells the offset; `PUT` with
/// `Content-Range` continues), retried with backoff after a failure.
extension AccordClient {
    /// Starts as many eligible uploads as the concurrency allows. An upload is
    /// eligible when its document is open, syncs (not local-only) and finished a sync
    /// round in this session (so the server has it), its mode sends
    /// changes on its own (`realtime`, `realtimePushOnly`, `polling`) or a `sync()`
    /// released it (`manual`, `realtimeSyncOff`), its backoff is over, and the client
    /// is not pinned offline.
    func pumpBlobUploads() {
        guard let state = blobState, isStarted, !isStopped, network.mode != .offline else { return }
        if state.uploadOrderIsStale {
            let oldestFirst = state.queue.values.sorted { ($0.queuedAt, $0.key) < ($1.queuedAt, $1.key) }
            state.smallUploadOrder = oldestFirst.filter(Self.isSmallUpload).map(\.key)
            state.largeUploadOrder = oldestFirst.filter { !Self.isSmallUpload($0) }.map(\.key)
            state.uploadOrderIsStale = false
        }
        var nextRetry: UInt64?
        startUploads(&state.smallUploadOrder, small: true, state: state, nextRetry: &nextRetry)
        startUploads(&state.largeUploadOrder, small: false, state: state, nextRetry: &nextRetry)
        if let nextRetry, state.retryAt.map({ nextRetry < $0 }) ?? true {
            state.retryTimer?.cancel()
            state.retryAt = nextRetry
            state.retryTimer = timer(at: nextRetry) { client in
                client.blobState?.retryAt = nil
                client.pumpBlobUploads()
            }
        }
    }

    /// Starts eligible uploads of one kind, oldest first, while its bound allows;
    /// `nextRetry` learns the earliest end of a backoff among those it passed.
    private func startUploads(_ order: inout [String], small: Bool, state: ClientBlobs, nextRetry: inout UInt64?) {
        // Keys at the front that left the queue (finished, deleted) are passed for good.
        var passed = 0
        while passed < order.count, state.queue[order[passed]] == nil { passed += 1 }
        if passed > 0 { order.removeFirst(passed) }
        let limit = small ? state.options.maxConcurrentSmallUploads : state.options.maxConcurrentUploads
        let now = self.now
        for key in order {
            // Full: every running upload of this kind pumps again when it ends, so the
            // rest (and their retry times) can wait until then.
            guard (small ? state.runningSmallUploads : state.runningUploads) < limit else { return }
            guard let entry = state.queue[key], case .waiting(let notBefore, let failures)? = state.uploadStates[key],
                let id = entry.document, let document = documents[id], !document.machine.localOnly,
                state.synced.contains(id)
            else { continue }
            let mode = document.machine.mode
            let automatic = mode == .realtime || mode == .realtimePushOnly || { if case .polling = mode { true } else { false } }()
            guard automatic || state.released.contains(key) else { continue }
            guard notBefore <= now else {
                nextRetry = min(nextRetry ?? notBefore, notBefore)
                continue
            }
            state.uploadStates[key] = .running
            if small { state.runningSmallUploads += 1 } else { state.runningUploads += 1 }
            Task { [weak self] in await self?.runUpload(entry, failures: failures) }
        }
    }

    /// Small blobs (16 KiB or less: one short request, sent from memory) run beside the
    /// large ones, with a bound of their own.
    static func isSmallUpload(_ entry: BlobUploadEntry) -> Bool {
        entry.size <= Int64(BlobStore.Tuning.smallBlobInlineLimit)
    }

    /// A `sync()` of the document: its queued uploads may run now, whatever its mode,
    /// and those the server refused are tried again.
    func blobSyncRequested(_ id: DocumentID) {
        guard let state = blobState else { return }
        for entry in state.queue.values where entry.documentID == id.rawValue {
            state.released.insert(entry.key)
            if state.uploadStates[entry.key] == .parked { state.uploadStates[entry.key] = .waiting(notBefore: 0, failures: 0) }
        }
        pumpBlobUploads()
    }

    /// A sync round of the document finished: the server knows it, its uploads may run.
    func blobDocumentSynced(_ id: DocumentID) {
        guard let state = blobState, state.synced.insert(id).inserted else { return }
        pumpBlobUploads()
    }

    /// The connection came back: waiting uploads need not sit out their backoff.
    func blobNetworkRestored() {
        guard let state = blobState else { return }
        for (key, upload) in state.uploadStates {
            if case .waiting(_, let failures) = upload { state.uploadStates[key] = .waiting(notBefore: 0, failures: failures) }
        }
        pumpBlobUploads()
    }

    private func runUpload(_ entry: BlobUploadEntry, failures: Int) async {
        guard let state = blobState, let id = entry.document else { return }
        var outcome: AccordError?
        do throws(AccordError) {
            try await upload(entry, id: id, state: state)
        } catch {
            outcome = error
        }
        if Self.isSmallUpload(entry) { state.runningSmallUploads -= 1 } else { state.runningUploads -= 1 }
        state.released.remove(entry.key)
        // Deleted meanwhile (deleteBlob): whatever happened, it is not queued any more.
        guard state.queue[entry.key] != nil else {
            state.uploadStates[entry.key] = nil
            return pumpBlobUploads()
        }
        guard let error = outcome else {
            state.queue[entry.key] = nil
            state.uploadStates[entry.key] = nil
            state.finishedKeys.append(entry.key)
            if state.finishedFlush == nil {
                state.finishedFlush = timer(at: now + 20) { client in client.removeFinishedUploads() }
            }
            bus.emit(.blob(.uploaded(BlobUploadedEvent(documentID: id, hash: entry.hash, size: entry.size))))
            return pumpBlobUploads()
        }
        switch Self.uploadFailureKind(error) {
        case .transient:
            let delay = min(state.options.maxRetryDelay, state.options.retryDelay << UInt64(min(failures, 16)))
            state.uploadStates[entry.key] = .waiting(notBefore: now + delay, failures: failures + 1)
            bus.emit(.blob(.uploadFailed(BlobUploadFailedEvent(documentID: id, hash: entry.hash, error: error, willRetry: true))))
        case .refused:
            state.uploadStates[entry.key] = .parked
            bus.emit(.blob(.uploadFailed(BlobUploadFailedEvent(documentID: id, hash: entry.hash, error: error, willRetry: false))))
        case .hopeless:
            try? store.storage.withAdapter { try $0.commit([.delete(BlobClientCategories.uploads, key: entry.key)]) }
            state.queue[entry.key] = nil
            state.uploadStates[entry.key] = nil
            bus.emit(.blob(.uploadFailed(BlobUploadFailedEvent(documentID: id, hash: entry.hash, error: error, willRetry: false))))
        }
        pumpBlobUploads()
    }

    /// Removes the queue entries of finished uploads from the store, in one commit.
    func removeFinishedUploads() {
        guard let state = blobState else { return }
        state.finishedFlush = nil
        let keys = state.finishedKeys
        state.finishedKeys.removeAll()
        guard !keys.isEmpty else { return }
        do throws(AccordError) {
            try store.storage.withAdapter { try $0.commit(keys.map { .delete(BlobClientCategories.uploads, key: $0) }) }
        } catch {
            // Left in the store: the next launch finds them done on the server (HEAD 200).
            bus.emit(.failure(nil, error))
        }
    }

    enum UploadFailureKind { case transient, refused, hopeless }

    /// Network trouble and server errors are tried again; a refusal waits for the
    /// app; content that is gone or damaged here can never be sent.
    static func uploadFailureKind(_ error: AccordError) -> UploadFailureKind {
        switch error.code {
        case .networkError, .networkTimeout: return .transient
        case .blobNotFound where error.httpStatus == nil: return .hopeless
        case .storageCorrupt where error.httpStatus == nil: return .hopeless
        case .blobHashMismatch: return .hopeless
        // The document has not reached the server yet (created offline, its first
        // sync still on the way): it will.
        case .documentNotFound: return .transient
        default:
            guard let status = error.httpStatus else { return .transient }
            return status >= 500 || status == 408 || status == 429 || status == 409 ? .transient : .refused
        }
    }

    /// One upload to completion: asks the server what it has, then sends the rest
    /// from the content file (or a verified export of it, for sealed stores).
    private func upload(_ entry: BlobUploadEntry, id: DocumentID, state: ClientBlobs) async throws(AccordError) {
        let hash = try BlobHash(hex: entry.hash)
        guard let info = try state.store.info(hash) else {
            throw AccordError(.blobNotFound, "blob \(entry.hash) is no longer on this device", details: ["blob": entry.hash])
        }
        var reason = TokenRequestReason.connect
        var token = try await self.token(reason)
        var source: (path: String, temporary: Bool)?
        var memoryBody: [UInt8]?
        defer { if let source, source.temporary { unlink(source.path) } }
        var attempts = 0
        // A first try in the session that queued it cannot have left a part on the
        // server: no need to ask for the offset (one round trip less per small blob).
        var asksOffset = state.fresh.remove(entry.key) == nil
        while true {
            attempts += 1
            var offset: Int64 = 0
            if asksOffset {
                let head = try await blobExchange(.head, id, entry.hash, token: token, timeout: Self.restTimeout)
                if head.status == 200 { return }
                if head.status == 401, case .connect = reason {
                    reason = .unauthenticated(ServerErrorMapping.error(status: 401, body: head.body))
                    token = try await self.token(reason)
                    continue
                }
                guard head.status == 404 else { throw ServerErrorMapping.error(status: head.status, body: head.body) }
                offset = min(max(0, head.header("accord-upload-offset").flatMap(Int64.init) ?? 0), info.size)
            }
            asksOffset = true
            if source == nil, memoryBody == nil {
                // Small content kept in the database is sent from memory: exporting it
                // to a temporary file first would cost a file and its sync per blob.
                if info.size <= Int64(BlobStore.Tuning.smallBlobInlineLimit), try state.store.plainContentPath(hash) == nil {
                    memoryBody = try state.store.get(hash)
                } else {
                    source = try uploadSource(hash, state: state)
                }
            }
            let total = info.size
            let bus = self.bus
            let start = offset
            let progress: @Sendable (Int64) -> Void = { sent in
                bus.emit(.blob(.uploadProgress(
                    BlobUploadProgressEvent(documentID: id, hash: entry.hash, bytesSent: start + sent, totalBytes: total))))
            }
            var headers: [(name: String, value: String)] = [("content-type", entry.contentType)]
            if offset > 0 { headers.append(("content-range", "bytes \(offset)-\(total - 1)/\(total)")) }
            let response: HTTPClientResponse
            if let memoryBody {
                response = try await blobExchange(
                    .put, id, entry.hash, token: token, headers: headers, body: Array(memoryBody[Int(offset)...]),
                    timeout: Self.restTimeout)
                progress(total - offset)
            } else {
                response = try await blobExchange(
                    .put, id, entry.hash, token: token, headers: headers,
                    bodyFile: HTTPFileBody(path: source!.path, offset: offset, length: total - offset, progress: progress),
                    timeout: .seconds(30 + (total - offset) >> 20))
            }
            if response.status == 200 || response.status == 201 { return }
            let error = ServerErrorMapping.error(status: response.status, body: response.body)
            // The server's offset moved (another attempt raced us): ask again, a few times.
            if response.status == 409 || (response.status == 401 && attempts < 3), attempts < 4 {
                if response.status == 401, case .connect = reason {
                    reason = .unauthenticated(error)
                    token = try await self.token(reason)
                }
                continue
            }
            throw error
        }
    }

    /// The file to send: the store's own content file when it holds the plain bytes,
    /// else a verified export into the temporary directory (removed after).
    private func uploadSource(_ hash: BlobHash, state: ClientBlobs) throws(AccordError) -> (path: String, temporary: Bool) {
        if let path = try state.store.plainContentPath(hash) { return (path, false) }
        let path = NSTemporaryDirectory() + "/accord-upload-\(hash.hex.prefix(16))-\(UInt64.random(in: 0...UInt64.max))"
        _ = try state.store.export(hash, toFile: path)
        return (path, true)
    }
}
