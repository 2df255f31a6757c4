public import AccordCRDT
public import AccordStore

/// The blob side of an ``AccordClient``: its ``BlobStore`` (beside the documents, in
/// the same storage), the upload queue's in-memory state, the download cache's use
/// order and pins, and the attachment changes of open documents waiting to be turned
/// into references. Made by ``AccordClient/blobs()``.
///
/// It follows the open documents as a ``DocumentObserver``: each one's attachments
/// (``Doc/observeAttachments(_:)``) keep the store's reference index current.
final class ClientBlobs: DocumentObserver, @unchecked Sendable {
    // Invariant behind @unchecked Sendable: every property is touched only on the
    // client's executor: from AccordClient's isolated methods, from DocumentObserver
    // calls (isolated to the client), and from attachment handlers, which run inside
    // a transaction of a document the client owns, so on its executor too.

    /// How an upload stands in this session.
    enum UploadState: Equatable {
        /// Waiting to run, not before this time (client ms).
        case waiting(notBefore: UInt64, failures: Int)
        case running
        /// Refused by the server: waits for the document's next `sync()` or the next launch.
        case parked
    }

    let store: BlobStore
    var options = BlobOptions()
    /// Every queued upload by key (`<hash>/<document>`), as stored.
    var queue: [String: BlobUploadEntry] = [:]
    var uploadStates: [String: UploadState] = [:]
    /// Uploads running now of blobs over ``smallUploadLimit`` bytes, and of small ones:
    /// each kind has its own bound (``BlobOptions``).
    var runningUploads = 0
    var runningSmallUploads = 0
    /// The queue's keys of each kind oldest first (by when queued, then key), so
    /// starting the next uploads walks from the front and stops when the kind's bound
    /// is reached, instead of scanning and comparing the whole queue after every
    /// finished upload (quadratic for a queue of thousands of small blobs). Keys that
    /// left the queue stay until a walk passes them; new entries set
    /// `uploadOrderIsStale` and the orders are rebuilt once before the next walk.
    var smallUploadOrder: [String] = []
    var largeUploadOrder: [String] = []
    var uploadOrderIsStale = false
    /// Finished uploads whose queue entries are not yet removed from the store: removed
    /// together, a few ms later, so a burst of small uploads shares one commit. (An
    /// entry a crash leaves behind is uploaded again: `HEAD` says the server has it.)
    var finishedKeys: [String] = []
    var finishedFlush: Task<Void, Never>?
    /// Uploads queued in this session and never tried: the server cannot hold part of
    /// them, so they skip the `HEAD` that asks for the offset and send at once.
    var fresh: Set<String> = []
    /// Uploads of documents that only upload on `sync()` (`manual`, `realtimeSyncOff`)
    /// released by one.
    var released: Set<String> = []
    var retryTimer: Task<Void, Never>?
    var retryAt: UInt64?
    /// Downloads in flight by hash, so two readers share one.
    var downloads: [String: Task<Void, any Error>] = [:]
    /// Downloads whose bytes all arrived, waiting for the next group commit
    /// (``AccordClient/commitDownload(_:)``), with who waits for each.
    var downloadCommits: [(finish: BlobWriterFinish, waiter: CheckedContinuation<Result<BlobInfo, AccordError>, Never>)] = []
    /// Last use per hash in this session (ms since 1970); blobs not used yet count from
    /// their creation in the store.
    var lastUsed: [String: Int64] = [:]
    var pinned: Set<String> = []
    var pinnedDocuments: Set<DocumentID> = []
    /// Bytes of content stored, once counted.
    var storedBytes: Int64?
    /// Documents that reached the server in this session (a sync round finished), so
    /// the server knows them and an upload is not refused as DOCUMENT_NOT_FOUND after
    /// its whole body was sent.
    var synced: Set<DocumentID> = []
    /// Attachment subscriptions of the open documents.
    var subscriptions: [DocumentID: Subscription] = [:]
    /// Attachment changes not yet applied to the reference index, in order.
    var pendingChanges: [(DocumentID, AttachmentChange)] = []

    init(store: BlobStore) {
        self.store = store
    }

    func documentOpened(_ id: DocumentID, doc: Doc, client: isolated AccordClient) {
        subscriptions[id]?.cancel()
        subscriptions[id] = doc.observeAttachments { [unowned self] change in self.pendingChanges.append((id, change)) }
        client.reconcileReferences(id, attachments: doc.attachments())
        client.pumpBlobUploads()
    }

    func documentClosed(_ id: DocumentID, client: isolated AccordClient) {
        client.applyAttachmentChanges()
        synced.remove(id)
        subscriptions.removeValue(forKey: id)?.cancel()
    }

    func documentStored(_ id: DocumentID, through sequence: UInt64, client: isolated AccordClient) {
        client.applyAttachmentChanges()
    }

    /// Blobs never evicted: pinned, or with an upload pending.
    var keptHashes: Set<String> {
        pinned.union(queue.values.map(\.hash))
    }
}
