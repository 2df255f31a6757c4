/// A change to a stored document, announced after it is durable, never before.
public struct DocumentChange: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Updates with these sequence numbers reached storage.
        case appended(ClosedRange<UInt64>)
        /// The log was folded into a new snapshot.
        case compacted
        /// Title, tags, flags or sync bookkeeping changed.
        case metadataChanged
        /// The local content was dropped (the metadata stays).
        case evicted
        /// The document is gone from the store.
        case deleted
    }

    public var id: DocumentID
    public var kind: Kind
    /// For `appended`: how many of the updates were local edits, and how many were
    /// received (appended with `isLocal: false`). Zero for the other kinds.
    public var localUpdates = 0
    public var remoteUpdates = 0
}

/// Keeps a ``DocumentStore`` change observer registered until ``cancel()`` is called.
public final class StoreSubscription: Sendable {
    private let onCancel: @Sendable () -> Void
    init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
    public func cancel() { onCancel() }
}
