public import AccordCRDT
public import AccordStore

/// Bytes of a blob's upload reached the socket (about every MiB, and at the end).
public struct BlobUploadProgressEvent: AccordEvent, Hashable {
    public var documentID: DocumentID
    public var hash: String
    /// Bytes the server holds or was sent so far (a resumed upload starts at the
    /// server's offset).
    public var bytesSent: Int64
    public var totalBytes: Int64

    public init(documentID: DocumentID, hash: String, bytesSent: Int64, totalBytes: Int64) {
        self.documentID = documentID
        self.hash = hash
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
    }
}

/// The server holds a blob of the document; it left the upload queue.
public struct BlobUploadedEvent: AccordEvent, Hashable {
    public var documentID: DocumentID
    public var hash: String
    public var size: Int64

    public init(documentID: DocumentID, hash: String, size: Int64) {
        self.documentID = documentID
        self.hash = hash
        self.size = size
    }
}

/// An upload failed. With `willRetry` it stays queued and is tried again after a
/// backoff; without, the server refused it (`DOC_ACCESS_DENIED`, `BLOB_TOO_LARGE`,
/// `QUOTA_EXCEEDED`, ...): it stays queued but waits for the next `sync()` of the
/// document or the next launch, or (`BLOB_NOT_FOUND`: the local content is gone;
/// `BLOB_HASH_MISMATCH`: the local content is damaged) it left the queue.
public struct BlobUploadFailedEvent: AccordEvent, Hashable {
    public var documentID: DocumentID
    public var hash: String
    public var error: AccordError
    public var willRetry: Bool

    public init(documentID: DocumentID, hash: String, error: AccordError, willRetry: Bool) {
        self.documentID = documentID
        self.hash = hash
        self.error = error
        self.willRetry = willRetry
    }
}

/// A blob was downloaded, verified by its hash, and stored on this device.
public struct BlobDownloadedEvent: AccordEvent, Hashable {
    public var documentID: DocumentID
    public var hash: String
    public var size: Int64

    public init(documentID: DocumentID, hash: String, size: Int64) {
        self.documentID = documentID
        self.hash = hash
        self.size = size
    }
}

/// Why a blob is not on this device.
public enum BlobUnavailableReason: String, Hashable, Sendable {
    /// The server could not be reached (or the client is offline).
    case offline
    /// The server has no such blob for the document (`BLOB_NOT_FOUND`).
    case notFound = "not_found"
    /// The server refused (`UNAUTHENTICATED`, `DOC_ACCESS_DENIED`).
    case denied
    /// The bytes received did not hash to the blob's name: discarded.
    case hashMismatch = "hash_mismatch"
    /// The download did not finish in time.
    case timeout
    /// The download cache dropped it to stay under `blobCacheBytes`.
    case evicted
}

/// A blob could not be read, or was dropped from this device. `documentID` is nil for
/// an eviction (the cache is shared by every document).
public struct BlobUnavailableEvent: AccordEvent, Hashable {
    public var documentID: DocumentID?
    public var hash: String
    public var reason: BlobUnavailableReason
    public var error: AccordError?

    public init(documentID: DocumentID?, hash: String, reason: BlobUnavailableReason, error: AccordError? = nil) {
        self.documentID = documentID
        self.hash = hash
        self.reason = reason
        self.error = error
    }
}

/// Every blob event, as it travels on the client's event stream.
public enum BlobEvent: Hashable, Sendable {
    case uploadProgress(BlobUploadProgressEvent)
    case uploaded(BlobUploadedEvent)
    case uploadFailed(BlobUploadFailedEvent)
    case downloaded(BlobDownloadedEvent)
    case unavailable(BlobUnavailableEvent)

    var typed: any AccordEvent {
        switch self {
        case .uploadProgress(let event): event
        case .uploaded(let event): event
        case .uploadFailed(let event): event
        case .downloaded(let event): event
        case .unavailable(let event): event
        }
    }
}
