import Foundation
import AccordCRDT
import AccordStore

/// Collections: a user's named set of documents whose members get a role on every
/// document in it, now and later, on top of the documents' own grants.
///
/// Category `server.collection`, key = collection id, value = ``Collection`` as JSON
/// (sorted keys). Read once into memory with a reverse index (document → collections),
/// written through; one lock, never held while calling out.
///
/// In a cluster other nodes write these rows too: a change holds the collection's
/// cluster-wide lock and re-reads its row first (so two nodes' changes both land), and
/// a node told of another's change re-reads that row (``reload(_:)``).
public final class CollectionStore: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: the dictionaries are only touched under `lock`.
    static let category = StorageCategory("server.collection")

    /// One collection. `members` holds the owner too (as `owner`).
    public struct Collection: Codable, Sendable, Hashable {
        public var owner: String
        public var title: String
        public var members: [String: Role]
        public var documents: [String]
    }

    private let storage: SerialStorage
    private let clusterLock: (any SharedDocumentLock)?
    private let lock = NSLock()
    private var loaded = false
    private var collections: [String: Collection] = [:]
    private var ofDocument: [String: Set<String>] = [:]

    init(storage: SerialStorage, clusterLock: (any SharedDocumentLock)? = nil) {
        self.storage = storage
        self.clusterLock = clusterLock
    }

    /// 1 to 128 bytes of UTF-8 without control characters or `/` (a URL path segment).
    static func validateID(_ id: String) throws(AccordError) {
        let count = id.utf8.count
        guard count >= 1, count <= 128, !id.utf8.contains(UInt8(ascii: "/")),
              !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw AccordError(
                .invalidArgument, "a collection id has 1 to 128 bytes of UTF-8 without control characters or '/'",
                details: ["field": "collection"])
        }
    }

    public func collection(_ id: String) throws(AccordError) -> Collection? {
        try locked { collections[id] }
    }

    /// One page of every collection in id order (Swift's `String` order): the first
    /// `limit` whose id sorts after `after` (from the start when nil), and the id to pass
    /// as `after` for the next page, nil on the last one.
    public func list(after: String?, limit: Int) throws(AccordError) -> (page: [(id: String, collection: Collection)], next: String?) {
        precondition(limit > 0, "a page holds at least one collection")
        return try locked {
            let ids = collections.keys.filter { id in after.map { id > $0 } ?? true }.sorted()
            let page = ids.prefix(limit).map { (id: $0, collection: collections[$0]!) }
            return (page, ids.count > limit ? page.last?.id : nil)
        }
    }

    /// Every user who is a member of some collection (owners included), with the ids of
    /// those collections, sorted: one pass, for listing many users at once.
    public func memberships() throws(AccordError) -> [String: [String]] {
        try locked {
            var byUser: [String: [String]] = [:]
            for (id, collection) in collections {
                for user in collection.members.keys { byUser[user, default: []].append(id) }
                if collection.members[collection.owner] == nil { byUser[collection.owner, default: []].append(id) }
            }
            return byUser.mapValues { $0.sorted() }
        }
    }

    /// The highest role `user` has on `document` through collections (owner counts as
    /// read-write: a document has one owner); nil when none.
    public func role(of user: String, on document: DocumentID) throws(AccordError) -> Role? {
        try locked {
            var best: Role?
            for id in ofDocument[document.rawValue] ?? [] {
                if let role = collections[id]?.members[user], best.map({ role > $0 }) ?? true { best = role }
            }
            return best.map { min($0, .readWrite) }
        }
    }

    /// Takes a deleted document out of every collection, so an id created again is in none.
    func removeEverywhere(_ document: DocumentID) throws(AccordError) {
        let holding = try locked { ofDocument[document.rawValue] ?? [] }
        for id in holding.sorted() {
            _ = try update(id) { collection in collection?.documents.removeAll { $0 == document.rawValue } }
        }
    }

    /// The members of every collection holding `document`.
    public func users(on document: DocumentID) throws(AccordError) -> Set<String> {
        try locked {
            var users: Set<String> = []
            for id in ofDocument[document.rawValue] ?? [] { users.formUnion(collections[id]?.members.keys ?? [:].keys) }
            return users
        }
    }

    /// Reads, changes and writes one collection under the lock; nil `change` result
    /// removes nothing (collections are not deleted here). Returns the collection before
    /// and after.
    func update(
        _ id: String, _ change: (inout Collection?) throws(AccordError) -> Void
    ) throws(AccordError) -> (before: Collection?, after: Collection?) {
        let name = "collection/" + id
        try clusterLock?.lock(named: name)
        defer { clusterLock?.unlock(named: name) }
        return try locked { () throws(AccordError) -> (before: Collection?, after: Collection?) in
            if clusterLock != nil { _ = try reloadWhileLocked(id) }
            let before = collections[id]
            var after = before
            try change(&after)
            guard after != before, let stored = after else { return (before, before) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let bytes = try? encoder.encode(stored) else {
                throw AccordError(.storageError, "cannot encode collection \(id)")
            }
            try storage.withAdapter { try $0.commit([.put(Self.category, key: id, value: Array(bytes))]) }
            collections[id] = stored
            for document in before?.documents ?? [] { ofDocument[document]?.remove(id) }
            for document in stored.documents { ofDocument[document, default: []].insert(id) }
            return (before, stored)
        }
    }

    /// Reads one collection's row again, because another node of a cluster changed it.
    /// Returns the documents it covered before or covers now (their roles may differ).
    @discardableResult
    public func reload(_ id: String) throws(AccordError) -> Set<DocumentID> {
        try locked { () throws(AccordError) -> Set<DocumentID> in try reloadWhileLocked(id) }
    }

    private func reloadWhileLocked(_ id: String) throws(AccordError) -> Set<DocumentID> {
        let after = try stored(id)
        let before = collections[id]
        collections[id] = after
        for document in before?.documents ?? [] { ofDocument[document]?.remove(id) }
        for document in after?.documents ?? [] { ofDocument[document, default: []].insert(id) }
        return Set(((before?.documents ?? []) + (after?.documents ?? [])).compactMap { DocumentID(rawValue: $0) })
    }

    /// The collection's row as stored, nil when it has none.
    /// - Throws: `STORAGE_CORRUPT` for a row that is not a collection; storage errors.
    private func stored(_ id: String) throws(AccordError) -> Collection? {
        guard let bytes = try storage.withAdapter({ try $0.read(Self.category, key: id) }) else { return nil }
        guard let collection = try? JSONDecoder().decode(Collection.self, from: Data(bytes)) else { throw Self.corrupt(id) }
        return collection
    }

    private static func corrupt(_ id: String) -> AccordError {
        AccordError(.storageCorrupt, "the collection row \(id) is unreadable", details: ["collection": id])
    }

    private func locked<T>(_ body: () throws(AccordError) -> T) throws(AccordError) -> T {
        lock.lock()
        defer { lock.unlock() }
        if !loaded {
            for key in try storage.withAdapter({ try $0.keys(in: Self.category) }) {
                guard let collection = try stored(key) else { throw Self.corrupt(key) }
                collections[key] = collection
                for document in collection.documents { ofDocument[document, default: []].insert(key) }
            }
            loaded = true
        }
        return try body()
    }
}
