public import Foundation

/// What a ``BlobStore`` knows about one stored blob.
public struct BlobInfo: Hashable, Sendable {
    /// The SHA-256 of the content, which names the blob.
    public var hash: BlobHash
    /// The content's length in bytes.
    public var size: Int64
    /// The media type given when the blob was first stored (for example `image/png`).
    /// Storing the same content again keeps the first one.
    public var contentType: String
    /// When the blob was first stored, by the store's clock, to the millisecond.
    public var created: Date

    public init(hash: BlobHash, size: Int64, contentType: String, created: Date) {
        self.hash = hash
        self.size = size
        self.contentType = contentType
        self.created = created
    }
}
