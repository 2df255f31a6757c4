import AccordCRDT
import AccordStore
import Foundation

/// The content trees the document page shows, kept per document so that a page
/// refetching on every notice does not re-encode the document each time.
///
/// A tree is encoded again only when the document changed since the cached one (a
/// loaded room's load and revision, a stored document's size and update time name its
/// state), and at most once per ``minimumIntervalMilliseconds`` (four times a second) per document however
/// many pages are open. Inside that interval the page gets the cached tree marked not
/// current, with the time after which a refetch gets a fresh one.
final class DashboardContentCache: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `entries` is only touched under `lock`.
    static let minimumIntervalMilliseconds: UInt64 = 250
    /// Documents whose tree is kept; the least recently encoded goes first.
    static let capacity = 64

    /// Names one state of a document: equal keys, equal content.
    enum Key: Hashable, Sendable {
        case room(SyncHub.RoomRevision)
        case stored(size: Int, updated: Int64)
    }

    struct Entry: Sendable {
        var key: Key
        var content: AnyValue
        var encodedAt: UInt64
    }

    /// What the page is given: the tree, whether it shows the document's state now,
    /// and if not, when a refetch will get one that does.
    struct Answer: Sendable {
        var content: AnyValue
        var current: Bool
        var retryInMilliseconds: UInt64?
    }

    private let lock = NSLock()
    private var entries: [DocumentID: Entry] = [:]
    private let now: @Sendable () -> UInt64

    init(now: @escaping @Sendable () -> UInt64) { self.now = now }

    /// The content of `id` in the state `key` names. `encode` is called only when the
    /// cached tree is of another state and the last encoding is old enough.
    func content(
        _ id: DocumentID, key: Key, encode: () throws(AccordError) -> AnyValue
    ) throws(AccordError) -> Answer {
        let time = now()
        if let entry = lock.withLock({ entries[id] }) {
            if entry.key == key { return Answer(content: entry.content, current: true) }
            let age = time >= entry.encodedAt ? time - entry.encodedAt : 0
            if age < Self.minimumIntervalMilliseconds {
                return Answer(content: entry.content, current: false, retryInMilliseconds: Self.minimumIntervalMilliseconds - age)
            }
        }
        let content = try encode()
        store(id, Entry(key: key, content: content, encodedAt: time))
        return Answer(content: content, current: true)
    }

    /// Whether ``content(_:key:encode:)`` would encode for `key` now (so a caller can
    /// skip producing the state it would encode from).
    func wouldEncode(_ id: DocumentID, key: Key) -> Bool {
        let time = now()
        guard let entry = lock.withLock({ entries[id] }) else { return true }
        if entry.key == key { return false }
        return time >= entry.encodedAt + Self.minimumIntervalMilliseconds
    }

    func forget(_ id: DocumentID) {
        lock.withLock { entries[id] = nil }
    }

    private func store(_ id: DocumentID, _ entry: Entry) {
        lock.withLock {
            entries[id] = entry
            if entries.count > Self.capacity, let oldest = entries.min(by: { $0.value.encodedAt < $1.value.encodedAt })?.key {
                entries[oldest] = nil
            }
        }
    }
}
