public import Foundation

/// The blobs of one document (`document.blobs`): attachments stored on this device
/// and queued for upload, read from here or downloaded on demand and verified by hash.
/// See `docs/blobs.md`.
///
/// ```swift
/// let photo = try await note.blobs.put(fileURL: url, contentType: "image/jpeg")
/// try await note.edit { doc in try doc.getMap("note").set("photo", photo.toJSON()) }
/// // elsewhere, after sync:
/// let bytes = try await note.blobs.data(for: photo)
/// ```
public struct DocumentBlobs: Sendable {
    public let document: AccordDocument

    var client: AccordClient { document.client }
    var id: DocumentID { document.id }

    /// Stores `data` on this device (durable when this returns), queues its upload,
    /// and returns the attachment value to put in the document's content.
    public func put(data: [UInt8], contentType: String, name: String? = nil) async throws(AccordError) -> BlobRef {
        try await client.putBlob(id, data: data, contentType: contentType, name: name)
    }

    /// Stores many blobs like ``put(data:contentType:name:)`` for each, returning their
    /// attachment values in order; the small ones (16 KiB or less) share one commit,
    /// so attaching many small files costs one sync rather than one each.
    public func putAll(_ items: [(data: [UInt8], contentType: String, name: String?)]) async throws(AccordError) -> [BlobRef] {
        try await client.putBlobs(id, items)
    }

    /// Stores a file's content (streamed, any size) like ``put(data:contentType:name:)``;
    /// `name` defaults to the file's name.
    public func put(fileURL: URL, contentType: String, name: String? = nil) async throws(AccordError) -> BlobRef {
        try await client.putBlob(id, fileURL: fileURL, contentType: contentType, name: name)
    }

    /// The blob's bytes, from this device or downloaded (`.local` never downloads and
    /// fails with `BLOB_UNAVAILABLE_OFFLINE`). For large blobs prefer ``export(_:to:waitForLoad:timeout:)``.
    public func data(
        for blob: BlobRef, waitForLoad: WaitForLoad = .localElseNetwork, timeout: Duration? = nil
    ) async throws(AccordError) -> [UInt8] {
        try await client.blobData(id, blob, waitForLoad: waitForLoad, timeout: timeout)
    }

    /// Writes the blob's content to `url`, verified, downloading it first if needed.
    public func export(
        _ blob: BlobRef, to url: URL, waitForLoad: WaitForLoad = .localElseNetwork, timeout: Duration? = nil
    ) async throws(AccordError) {
        try await client.exportBlob(id, blob, to: url, waitForLoad: waitForLoad, timeout: timeout)
    }

    /// Whether the blob's content is on this device.
    public func isLocal(_ blob: BlobRef) async throws(AccordError) -> Bool {
        try await client.hasBlobLocally(blob)
    }

    /// The blobs the server holds for this document.
    public func list() async throws(AccordError) -> [RemoteBlobInfo] {
        try await client.listBlobs(id)
    }

    /// Removes this document's reference to the blob on the server and drops a pending
    /// upload of it; remove the attachment value from the content yourself.
    public func delete(_ blob: BlobRef) async throws(AccordError) {
        try await client.deleteBlob(id, blob)
    }

    /// Keeps the blob on this device (downloading it now if needed), never evicted.
    public func pin(_ blob: BlobRef) async throws(AccordError) {
        try await client.pinBlob(id, blob)
    }

    public func unpin(_ blob: BlobRef) async throws(AccordError) {
        try await client.unpinBlob(blob)
    }

    /// Keeps every attachment of this document on this device, fetched as soon as the
    /// content references it.
    public func pinAll() async throws(AccordError) {
        try await client.pinBlobs(of: id)
    }

    public func unpinAll() async throws(AccordError) {
        try await client.unpinBlobs(of: id)
    }

    /// Hashes of this document's blobs still waiting for upload, oldest first.
    public func pendingUploads() async throws(AccordError) -> [String] {
        try await client.pendingBlobUploads(id)
    }

    /// Every attachment the document's content references (see `Doc.attachments()`).
    public func attachments() async throws -> [BlobRef] {
        try await client.withDocument(id) { doc in doc.attachments() }
    }
}

extension AccordDocument {
    /// This document's blobs: put, read, export, pin, list, delete.
    public var blobs: DocumentBlobs { DocumentBlobs(document: self) }
}

extension BlobUploadProgressEvent: DocumentEvent {}
extension BlobUploadedEvent: DocumentEvent {}
extension BlobUploadFailedEvent: DocumentEvent {}
extension BlobDownloadedEvent: DocumentEvent {}
