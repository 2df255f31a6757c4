import Foundation

/// The upload ids of puts in progress in this process. Their chunk logs have no index
/// record yet, so ``BlobStore/collectGarbage()`` would otherwise take them for
/// orphans and delete them under a running put.
///
/// Process-wide rather than per store: two `BlobStore`s on one storage still see each
/// other's uploads. Ids are 128 random bits, so stores never collide.
final class ActiveUploads: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `ids` is touched only with `lock` held.
    private let lock = NSLock()
    private var ids: Set<String> = []

    static let shared = ActiveUploads()

    func insert(_ id: String) {
        lock.lock()
        defer { lock.unlock() }
        ids.insert(id)
    }

    func remove(_ id: String) {
        lock.lock()
        defer { lock.unlock() }
        ids.remove(id)
    }

    func contains(_ id: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return ids.contains(id)
    }
}
