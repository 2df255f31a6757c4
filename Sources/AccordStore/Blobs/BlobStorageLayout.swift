import AccordCRDT

/// Where a ``BlobStore`` keeps its data. The index and the references always go
/// through the ``StorageAdapter``, so sealing at rest, `wipeAll` and the in-memory
/// adapter cover them like documents. The content goes to files in the adapter's
/// ``BlobDirectory`` when it offers one, else to chunks in the adapter.
///
/// - `blob.index`: one record per blob, keyed by the hex SHA-256 of its content
///   (``BlobIndexRecord``); it says where the content is: a content file, or the chunk
///   log of an upload.
/// - Content files (``BlobDirectory/contentPath(_:)``): `<directory>/<hex SHA-256>`,
///   plain or sealed (``BlobFileSealing``). A put writes `.upload-<id>` first, syncs
///   it, renames it to its hash name and syncs the directory, and only then commits the
///   index record; a file no index record names is an orphan and is collected.
/// - `blob.chunks` (adapters without a directory, and blobs written before content
///   files existed): one log per upload, keyed by a random upload id (32 hex digits);
///   entry `n` (from 1) holds bytes `(n-1)*chunkSize ..< n*chunkSize` of the content.
///   A chunk log that no index record names is an orphan and is collected.
/// - `blob.refs`: per document id, the hashes of the blobs it references.
/// - `blob.referrers`: per blob hash, the documents referencing it (the reverse of
///   `blob.refs`, kept in the same batches), so collection needs no scan of documents.
extension StorageCategory {
    static let blobChunks = StorageCategory("blob.chunks")
    static let blobIndex = StorageCategory("blob.index")
    static let blobRefs = StorageCategory("blob.refs")
    static let blobReferrers = StorageCategory("blob.referrers")
}
