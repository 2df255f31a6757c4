import AccordStore
import Foundation

/// `{"blobId","size","contentType"}`: the answer to a finished upload.
struct BlobInfoBody: Encodable {
    var blobId: String
    var size: Int64
    var contentType: String

    init(_ info: BlobInfo) {
        blobId = info.hash.hex
        size = info.size
        contentType = info.contentType
    }
}

/// One entry of `GET …/blobs`; `createdAt` is ISO 8601 UTC with milliseconds.
struct BlobListEntry: Encodable {
    var blobId: String
    var size: Int64
    var contentType: String
    var createdAt: String

    init(_ info: BlobInfo) {
        blobId = info.hash.hex
        size = info.size
        contentType = info.contentType
        createdAt = info.created.formatted(DocumentBody.dateStyle)
    }
}

struct BlobListBody: Encodable {
    var blobs: [BlobListEntry]
}

/// The answer to a `Content-Range` part that left the blob unfinished (202).
struct BlobUploadProgressBody: Encodable {
    var blobId: String
    var offset: Int64
    var size: Int64
}
