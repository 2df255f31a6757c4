/// A storage that numbers some logs' entries itself, so several processes can append
/// to one of them at once without colliding (a cluster's nodes on one PostgreSQL).
/// Layers that keep their own logs (the server's per-user listings) append through it
/// when it numbers their category, instead of reading the last number and taking the
/// next (which two processes can do at the same moment).
public protocol LogNumberingAdapter: StorageAdapter {
    /// Whether this storage numbers the entries of `category`'s logs.
    func numbersLogs(in category: StorageCategory) -> Bool
    /// Appends `value` to the log as its next entry, in a transaction of its own that
    /// is committed before this returns, and returns the entry's sequence.
    func appendNext(_ category: StorageCategory, key: String, value: [UInt8]) throws -> UInt64
}
