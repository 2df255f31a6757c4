import AccordCRDT
import AccordNet
import AccordStore

extension AccordClient {
    /// Makes sure a blob's content is on this device: already there, or downloaded
    /// (one download per hash at a time: later readers wait for the first).
    func ensureBlobLocal(
        _ id: DocumentID, _ blob: BlobRef, waitForLoad: WaitForLoad, timeout: Duration?
    ) async throws(AccordError) {
        applyAttachmentChanges()
        let state = try blobs()
        if try state.store.exists(blob.blobHash) { return }
        guard waitForLoad != .local else {
            throw Self.blobOfflineError(id, blob, "blob \(blob.hash) is not on this device")
        }
        guard network.mode != .offline, !isStopped else {
            bus.emit(.blob(.unavailable(BlobUnavailableEvent(documentID: id, hash: blob.hash, reason: .offline))))
            throw Self.blobOfflineError(id, blob, "blob \(blob.hash) is not on this device and the client is offline")
        }
        let task: Task<Void, any Error>
        if let running = state.downloads[blob.hash] {
            task = running
        } else {
            task = Task { [weak self] in
                guard let self else { return }
                try await self.downloadBlob(id, blob, timeout: timeout)
            }
            state.downloads[blob.hash] = task
        }
        do {
            try await task.value
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(.networkError, "the download of blob \(blob.hash) failed: \(error)")
        }
    }

    /// One download: GET into a ``BlobWriter``, committed only if the bytes hash to
    /// the blob's name. Every failure is a ``BlobUnavailableEvent`` with its reason.
    private func downloadBlob(_ id: DocumentID, _ blob: BlobRef, timeout: Duration?) async throws(AccordError) {
        let state = try blobs()
        defer { state.downloads[blob.hash] = nil }
        let limit = timeout ?? (state.options.downloadTimeout + .seconds(blob.size >> 20))
        do throws(AccordError) {
            var reason = TokenRequestReason.connect
            while true {
                let writer = try BlobWriter(store: state.store)
                let sink = BlobDownloadSink(writer: writer)
                let response: HTTPClientResponse
                do throws(AccordError) {
                    response = try await blobExchange(
                        .get, id, blob.hash, token: try await token(reason), timeout: limit, sink: sink)
                } catch {
                    // The store refusing a piece (a full disk) ends the request: say so.
                    throw sink.failure ?? error
                }
                if response.status == 200 {
                    let info = try await commitDownload(
                        BlobWriterFinish(
                            writer: writer, expected: blob.blobHash,
                            contentType: response.header("content-type") ?? blob.contentType, reference: id))
                    if state.storedBytes != nil { state.storedBytes! += info.size }
                    break
                }
                writer.abandon()
                let error = ServerErrorMapping.error(status: response.status, body: response.body)
                guard response.status == 401, case .connect = reason else { throw error }
                reason = .unauthenticated(error)
            }
        } catch {
            bus.emit(.blob(.unavailable(
                BlobUnavailableEvent(documentID: id, hash: blob.hash, reason: Self.unavailableReason(error), error: error))))
            throw error
        }
        recordBlobUse(blob.hash)
        // Other open documents that reference it get their reference now it is here.
        for (other, document) in documents where other != id && document.stored.doc.referencesAttachment(blob.hash) {
            try blobs().store.addReference(blob.blobHash, document: other)
        }
        bus.emit(.blob(.downloaded(BlobDownloadedEvent(documentID: id, hash: blob.hash, size: blob.size))))
        try enforceBlobCache()
    }

    /// Commits a download whose bytes all arrived, together with the others that
    /// arrived meanwhile: the commit runs in a task of its own on the client's
    /// executor, so downloads finishing while it waits join it, and small ones (held
    /// in memory) share one store commit, one sync, instead of one each.
    func commitDownload(_ finish: BlobWriterFinish) async throws(AccordError) -> BlobInfo {
        let state = try blobs()
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<BlobInfo, AccordError>, Never>) in
            state.downloadCommits.append((finish, waiter))
            if state.downloadCommits.count == 1 {
                // Holds the client until the commit ran: every waiter gets its answer.
                Task { await self.commitDownloads() }
            }
        }
        return try result.get()
    }

    /// The group commit of ``commitDownload(_:)``.
    private func commitDownloads() {
        guard let state = blobState else { return }  // set before any download started
        let pending = state.downloadCommits
        state.downloadCommits.removeAll()
        let results = BlobWriter.finishAll(pending.map(\.finish), store: state.store)
        for (entry, result) in zip(pending, results) { entry.waiter.resume(returning: result) }
    }

    static func unavailableReason(_ error: AccordError) -> BlobUnavailableReason {
        switch error.code {
        case .blobHashMismatch: .hashMismatch
        case .networkTimeout: .timeout
        case .networkError, .blobUnavailableOffline: .offline
        case .blobNotFound: .notFound
        default: error.httpStatus == 404 ? .notFound : .denied
        }
    }

    static func blobOfflineError(_ id: DocumentID, _ blob: BlobRef, _ message: String) -> AccordError {
        AccordError(.blobUnavailableOffline, message, details: ["document": id.rawValue, "blob": blob.hash])
    }

    // MARK: Requests

    /// A bearer token from the provider, its failure as an AccordError.
    func token(_ reason: TokenRequestReason) async throws(AccordError) -> String {
        do {
            return try await tokenProvider(reason)
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(TokenRequestReason.refusalCode, "the token provider failed: \(error)")
        }
    }

    /// One request on a blob route of the document.
    func blobExchange(
        _ method: HTTPMethod, _ id: DocumentID, _ hash: String, token: String, headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], bodyFile: HTTPFileBody? = nil, timeout: Duration, sink: (any HTTPResponseSink)? = nil
    ) async throws(AccordError) -> HTTPClientResponse {
        let http: HTTPClient
        do {
            http = try restTransport()
        } catch {
            throw ServerErrorMapping.error(error)
        }
        let url = restURL(ServerCall(.get, ["v1", "documents", id.rawValue, "blobs", hash]))
        var request = HTTPClientRequest(method, url, headers: [("authorization", "Bearer \(token)")] + headers)
        request.body = body
        request.bodyFile = bodyFile
        request.customResponseHeaders = ["accord-upload-offset"]
        do {
            return try await http.send(request, timeout: timeout, sink: sink)
        } catch {
            throw ServerErrorMapping.error(error)
        }
    }
}
