public import AccordCRDT

extension BlobStore {
    /// The path of a blob's content file when it holds the plain bytes (a file, not
    /// sealed), so a sender can stream it as it is; nil when the content is sealed, in
    /// chunks, or not stored (read it through ``export(_:toFile:)`` then). The file is
    /// the store's: read it only, and expect it to vanish when the blob is deleted.
    package func plainContentPath(_ hash: BlobHash) throws(AccordError) -> String? {
        guard let directory else { return nil }
        return try storage.withAdapter { adapter in
            guard let record = try Self.indexRecord(hash, in: adapter), case .file(sealed: false) = record.content else {
                return nil
            }
            return directory.contentPath(hash)
        }
    }
}
