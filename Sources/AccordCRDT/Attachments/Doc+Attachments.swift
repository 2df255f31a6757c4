/// The attachments a document references (see ``BlobRef``).
extension Doc {
    /// Every attachment the document's content references, one per hash, in hash
    /// order: attachment values anywhere in maps, arrays, nested types, text embeds and
    /// JSON values, and maps whose entries form one.
    ///
    /// The first call walks the document once; from then on the document keeps the
    /// answer current from each transaction's changes, so later calls cost only the
    /// copy of the result.
    public func attachments() -> [BlobRef] {
        attachmentIndex().attachments
    }

    /// Whether the content references `hash` (64 hex digits, either case).
    public func referencesAttachment(_ hash: String) -> Bool {
        guard let normalized = BlobRef.normalizedHash(hash) else { return false }
        return attachmentIndex().references(normalized)
    }

    /// Calls `handler` after each transaction that made a hash referenced by the
    /// content (`added`) or no longer referenced anywhere in it (`removed`).
    @discardableResult
    public func observeAttachments(_ handler: @escaping (AttachmentChange) -> Void) -> Subscription {
        let tracker = attachmentIndex()
        let id = nextSubscriptionID
        nextSubscriptionID += 1
        tracker.listeners.append((id, handler))
        return Subscription { [weak tracker] in tracker?.listeners.removeAll { $0.id == id } }
    }

    /// The tracker, made (with one walk over every struct) on first use.
    private func attachmentIndex() -> AttachmentTracker {
        if let attachmentTracker { return attachmentTracker }
        let tracker = AttachmentTracker(store: store)
        attachmentTracker = tracker
        attachmentSubscription = addAfterTransactionHandler { [unowned self, unowned tracker] tr in
            tracker.transactionEnded(self.store, tr)
        }
        return tracker
    }

    /// The attachments found by walking the visible content from the roots, without
    /// the incremental index: what ``attachments()`` must always equal (tests compare
    /// the two over random edits).
    package func attachmentsByWalkingContent() -> [BlobRef] {
        var found: [BlobRef] = []
        var visited: Set<Int32> = []
        var pending: [Int32] = store.roots.values.sorted()
        while let t = pending.popLast() {
            guard visited.insert(t).inserted else { continue }
            let record = store.types[Int(t)]
            if record.kind == .map, let blob = AttachmentTracker.mapBlob(store, type: t) { found.append(blob) }
            var held: [YValue] = []
            for key in record.map.keys.sorted() {
                let ref = record.map[key]!
                if !store.items[Int(ref)].deleted, let last = values(of: ref).last { held.append(last) }
            }
            held += listValues(type: t)
            for value in held {
                switch value {
                case .value(let plain): BlobRef.collect(from: plain, into: &found)
                default: if let nested = typeIndex(of: value) { pending.append(nested) }
                }
            }
        }
        var byHash: [String: BlobRef] = [:]
        for blob in found where byHash[blob.hash].map({ blob < $0 }) ?? true { byHash[blob.hash] = blob }
        return byHash.values.sorted()
    }
}
