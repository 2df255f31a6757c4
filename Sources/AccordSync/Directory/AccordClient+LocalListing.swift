import AccordCRDT
import AccordStore

extension AccordClient {
    /// The documents this device knows the user owns, for the local-first listing:
    /// cached entries with permission `owner`, and documents created here that the server
    /// has not confirmed yet (their entry built from the store: `owner` empty, `size` the
    /// local bytes, `permission` owner). Oldest first (creation time, then id).
    package func localOwnedDocuments() throws(AccordError) -> [DocumentInfo] {
        var byID: [DocumentID: DocumentInfo] = [:]
        for entry in try directoryCache.all() where entry.permission == .owner { byID[entry.id] = entry }
        for (id, create) in try pendingCreates() where byID[id] == nil {
            guard try store.contains(id) else { continue }
            let local = try store.metadata(id)
            byID[id] = DocumentInfo(
                id: id, title: local.title, tags: local.tags, created: local.created, updated: local.updated,
                size: local.size, permission: .owner, owner: "",
                metadata: create.metadata.flatMap { try? AnyValue(jsonText: $0) })
        }
        return byID.values.sorted { ($0.created, $0.id.rawValue) < ($1.created, $1.id.rawValue) }
    }

    /// Whether the cache holds any entry (a device that never listed nor heard of one
    /// has nothing local to show).
    package var hasCachedDirectory: Bool {
        get throws(AccordError) {
            if try !directoryCache.all().isEmpty { return true }
            return try !pendingCreates().isEmpty
        }
    }

    /// Caches the documents of a listing page the server sent (each an `updated` event
    /// when it differs from the cache).
    package func cacheListed(_ documents: [[UInt8]]) {
        for json in documents {
            guard let info = try? DocumentInfo(json: json) else { continue }
            entryUpdated(info.id, json: json)
        }
    }

    /// Runs ``syncMetadata()`` in the background, unless a refresh is already running;
    /// its changes arrive as ``DocumentMetadataChangedEvent``s. Failures (offline) are
    /// dropped: the cached listing stands until the next refresh.
    package func refreshDirectoryInBackground() {
        guard directoryState.refresh == nil, !isStopped else { return }
        directoryState.refresh = Task { [weak self] in
            try? await self?.syncMetadata()
            await self?.refreshEnded()
        }
    }

    private func refreshEnded() {
        directoryState.refresh = nil
    }
}
