import Foundation

extension DocumentStore {
    /// Batching and compaction settings. The defaults suit interactive editing.
    public struct Options: Sendable {
        /// Appends are buffered in memory and committed together when this many are
        /// waiting, when ``maxBufferedBytes`` is reached, when ``flushDelay`` has passed
        /// since the first of them (those three on a background thread, so the thread
        /// that appends does not wait for the commit), or on ``DocumentStore/flush()``.
        /// At eight times either threshold an append commits itself, waiting if need be.
        public var maxBufferedUpdates = 1024
        public var maxBufferedBytes = 1 << 20
        /// How long an append may wait in memory before a background flush commits it;
        /// nil leaves it to the thresholds and explicit flushes.
        public var flushDelay: Duration? = .milliseconds(10)
        /// Compact when the log is larger than this many times the snapshot (a log that
        /// only adds content after the snapshot counts as snapshot here: see
        /// ``DocumentStore/CompactionResult/keptJoinableLog``)...
        public var compactionLogFactor = 4
        /// ...and larger than this floor, in bytes...
        public var compactionLogFloor = 64 * 1024
        /// ...or when it holds this many entries. Zero turns automatic compaction off.
        public var compactionMaxEntries = 1024
        /// Whether automatic compaction runs on a background queue (the default) or on
        /// the thread whose flush passed the threshold.
        public var compactInBackground = true
        /// Whether compaction garbage-collects deleted content (as a Yjs `Doc` with
        /// `gc` on does). Turn off to keep deleted content for snapshots and undo.
        public var garbageCollectOnCompaction = true
        /// Set when other processes append to the same storage at the same time (a
        /// cluster of servers on one PostgreSQL): see ``SharedStorage``. Nil (the
        /// default) when this store is the only writer.
        public var shared: SharedStorage?
        /// The clock for metadata times; injected by tests.
        public var now: @Sendable () -> Date = { Date() }

        public init() {}

        /// Whether a log of this size over a snapshot of that size should be folded.
        /// `joinableLogBytes`: how much of the log (from its start) an earlier automatic
        /// fold found to only add content after the snapshot; the size rule counts it
        /// as snapshot, since folding it would write the same structs again.
        func needsCompaction(_ metadata: DocumentMetadata, joinableLogBytes: Int = 0) -> Bool {
            guard compactionMaxEntries > 0 else { return false }
            // One update over no snapshot: the fold would replay it into a document and
            // write the same state back, and loading costs one update either way. Only
            // its memory would show (an ingest's update of a million records replayed
            // into a second document, hundreds of megabytes). The next append folds both.
            if metadata.logCount == 1 && metadata.snapshotBytes == 0 { return false }
            if metadata.logCount >= compactionMaxEntries { return true }
            let joinable = min(max(joinableLogBytes, 0), metadata.logBytes)
            let threshold = max(compactionLogFloor, compactionLogFactor * (metadata.snapshotBytes + joinable))
            return metadata.logBytes - joinable > threshold
        }
    }
}
