/// How an ``AccordClient`` moves blobs (``AccordClient/configureBlobs(_:)``).
public struct BlobOptions: Hashable, Sendable {
    /// The most bytes of blob content kept on this device before the least recently
    /// used are evicted; nil keeps everything. Only blobs with no pending upload and
    /// not pinned (by ``AccordClient/pinBlob(_:_:)`` or a pinned document) are evicted,
    /// so the total can stay above the cap while those alone exceed it.
    public var cacheBytes: Int64?
    /// Uploads of blobs over 16 KiB running at once, across documents (at least 1).
    public var maxConcurrentUploads: Int
    /// Uploads of blobs of 16 KiB or less running at once, besides those (at least 1).
    /// Each is one short request whose time goes mostly to round trips and the
    /// server's commit, not bandwidth: more in flight keep the server busy.
    public var maxConcurrentSmallUploads: Int
    /// The first retry's delay after a failed upload (ms); doubled per failure in a
    /// row up to ``maxRetryDelay``.
    public var retryDelay: UInt64
    public var maxRetryDelay: UInt64
    /// How long a download may take at least; large blobs get 1 s more per MiB.
    public var downloadTimeout: Duration

    public init(
        cacheBytes: Int64? = nil, maxConcurrentUploads: Int = 3, retryDelay: UInt64 = 500,
        maxRetryDelay: UInt64 = 30_000, downloadTimeout: Duration = .seconds(30), maxConcurrentSmallUploads: Int = 8
    ) {
        self.cacheBytes = cacheBytes
        self.maxConcurrentUploads = max(1, maxConcurrentUploads)
        self.maxConcurrentSmallUploads = max(1, maxConcurrentSmallUploads)
        self.retryDelay = retryDelay
        self.maxRetryDelay = max(retryDelay, maxRetryDelay)
        self.downloadTimeout = downloadTimeout
    }
}
