import AccordCRDT

extension SQLiteStorageAdapter {
    /// Where a ``BlobStore`` on this adapter keeps blob content.
    public enum BlobFilePlacement: Sendable, Hashable {
        /// Files in `<database path>.blobs`, the default: a blob costs about one write
        /// and one fsync of its bytes, where chunks in the database cost several
        /// (the WAL and the database file, page by page).
        case besideDatabase
        /// Files in the directory at this path; only blob files belong there, and
        /// `wipeAll` removes it.
        case directory(String)
        /// Chunks in the database (`blob.chunks`), as before content files existed.
        case inDatabase

        /// The directory for a database at `path`; none for `:memory:` databases.
        func directory(forDatabase path: String) -> BlobDirectory? {
            switch self {
            case .besideDatabase: path == ":memory:" || path.isEmpty ? nil : BlobDirectory(path: path + ".blobs")
            case .directory(let directory): BlobDirectory(path: directory)
            case .inDatabase: nil
            }
        }
    }
}
