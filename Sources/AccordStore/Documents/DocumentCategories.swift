/// Where the document store keeps its data in a ``StorageAdapter``. Document ids are the keys.
enum DocumentCategories {
    /// JSON ``DocumentMetadata`` records.
    static let metadata = StorageCategory("doc.meta")
    /// One update v1 per document holding every update up to `snapshotSequence`.
    static let snapshot = StorageCategory("doc.snapshot")
    /// Updates appended since the snapshot, by sequence.
    static let log = StorageCategory("doc.log")
    /// Copies of local updates the server has not acknowledged yet, by sequence. Kept
    /// apart from the log so compaction can fold the log without losing what to resend.
    static let outbound = StorageCategory("doc.outbound")
    /// The Yjs client ID a document last wrote with on this device (``ClientLease``).
    static let clientLease = StorageCategory("doc.client")
}
