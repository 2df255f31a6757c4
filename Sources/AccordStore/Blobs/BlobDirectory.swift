import AccordCRDT

/// A directory where a ``BlobStore`` keeps blob content as plain files, one per blob,
/// instead of as chunks in the storage adapter.
///
/// Why files: a database writes every page twice (its journal, then the page) and adds
/// per-page overhead, so a 100 MB blob cost several times a file copy. A content file
/// costs one write and one fsync; the adapter keeps only the small index record.
///
/// An adapter offers a directory through ``StorageAdapter/blobDirectory``; the SQLite
/// adapter offers `<database path>.blobs` by default, and its `wipeAll` removes it. An
/// adapter that offers none (the in-memory one, or any adapter that does not opt in)
/// keeps blob content in the adapter as before. ``SealedStorageAdapter`` passes its
/// inner adapter's directory on with a key derived from its own, so sealed stores seal
/// the content files too (see ``BlobFileSealing``).
public struct BlobDirectory: Sendable {
    /// The directory's path; created on the first put that needs it.
    public let path: String
    /// Set by ``SealedStorageAdapter``: the key the content files are sealed with, a
    /// subkey of the adapter's sealing key. Nil stores content in clear.
    let sealingKey: SecretBytes?

    /// A directory at `path` holding content in clear. Only blob files belong there:
    /// garbage collection removes files with blob names that no index record names, and
    /// `wipeAll` may remove the whole directory.
    public init(path: String) {
        self.path = path
        sealingKey = nil
    }

    init(path: String, sealingKey: SecretBytes?) {
        self.path = path
        self.sealingKey = sealingKey
    }

    /// Whether content files are sealed.
    public var isSealed: Bool { sealingKey != nil }
}

extension StorageAdapter {
    /// No directory: blob content stays in the adapter (`blob.chunks`). Adapters that
    /// keep their data in files override this (see ``BlobDirectory``).
    public var blobDirectory: BlobDirectory? { nil }
}
