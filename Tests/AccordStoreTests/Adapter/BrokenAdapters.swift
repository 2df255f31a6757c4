import Foundation
import AccordStore

/// Forwards every call to a working adapter; each subclass breaks exactly one promise,
/// so the conformance suite can be shown to notice.
class ForwardingAdapter: StorageAdapter {
    let inner: any StorageAdapter

    init(_ inner: any StorageAdapter = MemoryStorageAdapter()) { self.inner = inner }

    // Declared here, not only in a subclass: the protocol's witness is the base class's
    // member, so a subclass can only change it by overriding this.
    var blobDirectory: BlobDirectory? { inner.blobDirectory }

    func read(_ category: StorageCategory, key: String) throws -> [UInt8]? {
        try inner.read(category, key: key)
    }

    func keys(in category: StorageCategory) throws -> [String] { try inner.keys(in: category) }

    func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        try inner.readLog(category, key: key, after: after, limit: limit)
    }

    func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64? {
        try inner.lastSequence(category, key: key)
    }

    func logKeys(in category: StorageCategory) throws -> [String] { try inner.logKeys(in: category) }

    func commit(_ batch: [StorageOperation]) throws { try inner.commit(batch) }

    func wipeAll() throws { try inner.wipeAll() }
}

/// Lost overwrites: a put to a key that already has a record is dropped (a
/// "write if absent" cache).
final class DropsOverwritesAdapter: ForwardingAdapter {
    override func commit(_ batch: [StorageOperation]) throws {
        var written: Set<[UInt8]> = []
        let kept = try batch.filter { operation in
            guard case .put(let category, let key, _) = operation else { return true }
            let name = Array("\(category.rawValue)\u{0}\(key)".utf8)
            defer { written.insert(name) }
            return try !written.contains(name) && inner.read(category, key: key) == nil
        }
        try inner.commit(kept)
    }
}

/// Merged categories: every category is stored as one.
final class MergesCategoriesAdapter: ForwardingAdapter {
    private let merged = StorageCategory("merged")

    override func read(_ category: StorageCategory, key: String) throws -> [UInt8]? {
        try inner.read(merged, key: key)
    }

    override func keys(in category: StorageCategory) throws -> [String] { try inner.keys(in: merged) }

    override func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        try inner.readLog(merged, key: key, after: after, limit: limit)
    }

    override func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64? {
        try inner.lastSequence(merged, key: key)
    }

    override func logKeys(in category: StorageCategory) throws -> [String] { try inner.logKeys(in: merged) }

    override func commit(_ batch: [StorageOperation]) throws {
        try inner.commit(batch.map { operation in
            switch operation {
            case .put(_, let key, let value): .put(merged, key: key, value: value)
            case .delete(_, let key): .delete(merged, key: key)
            case .append(_, let key, let sequence, let value): .append(merged, key: key, sequence: sequence, value: value)
            case .truncateLog(_, let key, let through): .truncateLog(merged, key: key, through: through)
            case .deleteLog(_, let key): .deleteLog(merged, key: key)
            }
        })
    }
}

/// Reordered logs: entries come back newest first (a stack, or `ORDER BY ... DESC`).
final class ReversesLogsAdapter: ForwardingAdapter {
    override func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        let all = try inner.readLog(category, key: key, after: after, limit: Int.max)
        return Array(all.reversed().prefix(limit))
    }
}

/// Reordered logs: entries come back in the order the storage holds them rather than
/// by sequence, as from a hash table or pages rewritten by a compaction. The storage
/// order here is a fixed shuffle: odd positions first, then even ones.
final class StorageOrderLogsAdapter: ForwardingAdapter {
    override func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        let all = Array(try inner.readLog(category, key: key, after: after, limit: Int.max).enumerated())
        let stored = all.filter { $0.offset % 2 == 1 } + all.filter { $0.offset % 2 == 0 }
        return Array(stored.map(\.element).prefix(limit))
    }
}

/// Reading past `limit`: every entry after `after` comes back, so a reader that pages
/// through a log gets pages of the wrong size.
final class IgnoresLimitAdapter: ForwardingAdapter {
    override func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        try inner.readLog(category, key: key, after: after, limit: Int.max)
    }
}

/// Non-atomic batches: each operation is committed on its own, so the ones before a
/// failing operation stay applied.
final class NonAtomicBatchesAdapter: ForwardingAdapter {
    override func commit(_ batch: [StorageOperation]) throws {
        for operation in batch { try inner.commit([operation]) }
    }
}

/// Incomplete wipes: `wipeAll` deletes every record it knows of but leaves the logs.
final class KeepsLogsOnWipeAdapter: ForwardingAdapter {
    private var categories: Set<StorageCategory> = []

    override func commit(_ batch: [StorageOperation]) throws {
        for operation in batch {
            switch operation {
            case .put(let category, _, _), .delete(let category, _), .append(let category, _, _, _),
                 .truncateLog(let category, _, _), .deleteLog(let category, _):
                categories.insert(category)
            }
        }
        try inner.commit(batch)
    }

    override func wipeAll() throws {
        let deletes = try categories.flatMap { category in
            try inner.keys(in: category).map { StorageOperation.delete(category, key: $0) }
        }
        try inner.commit(deletes)
    }
}

/// Offers a blob directory (in the system's temporary directory) but its `wipeAll`
/// forgets the blob files: a logout would leave attachments on the disk.
final class KeepsBlobFilesOnWipeAdapter: ForwardingAdapter {
    private let directory = BlobDirectory(
        path: "\(FileManager.default.temporaryDirectory.path)/accord-keeps-blobs-\(UInt64.random(in: 0...UInt64.max))")

    override var blobDirectory: BlobDirectory? { directory }

    deinit { try? FileManager.default.removeItem(atPath: directory.path) }
}
