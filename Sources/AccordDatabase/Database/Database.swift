public import AccordCRDT
public import AccordStore
import Foundation

/// A database of JSON documents in collections, in the shape of Couchbase Lite's
/// `Database`, over Accord's store: each collection is one CRDT document, so two devices
/// editing one document merge key by key (see `docs/database.md`).
///
/// ```swift
/// let database = try Database(name: "app", directory: folder)
/// let tasks = try database.createCollection(name: "tasks")
/// let task = MutableDocument().setString("Buy milk", forKey: "title").setBoolean(false, forKey: "done")
/// try tasks.save(document: task)
/// let read = try tasks.document(id: task.id)?.string(forKey: "title")   // "Buy milk"
/// ```
///
/// Thread safety: every method may be called from any thread. Calls are serialized by
/// one lock, held for the whole of ``inBatch(_:)``, so no reader (another thread, a
/// query) ever sees part of a batch. Only one `Database` may have a database's files
/// open at a time, in any process (`DATABASE_LOCKED`).
public final class Database: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `state` and everything reached through it
    // (the store's documents, the document table, listeners' registrations) is read and
    // written only while `lock` is held.

    public let name: String
    /// The directory that holds the database's folder (`<name>.accorddb`).
    public let directory: String
    /// The store holding the collections (one document each): create an `AccordClient`
    /// over it to sync the database (`client.sync(database:)`).
    public let store: DocumentStore
    /// Hands what a syncing client receives to this database.
    let syncObserver = DatabaseSyncObserver()
    /// The clients `sync(database:)` was called with (weakly, under `lock`): a collection
    /// created later is opened in each, so it syncs too.
    var syncingClients: [WeakClient] = []

    let files: DatabaseFiles
    let lock = NSRecursiveLock()
    var state: OpenState?
    /// The writes of the ``inBatch(_:)`` running now, committed when it returns.
    var batch: PendingBatch?
    let listeners = ChangeListeners()
    /// The wall clock expirations are compared with (injected by tests).
    let now: @Sendable () -> Date
    /// The next expiry pass, scheduled for the earliest expiration (see `Database+Expiration.swift`).
    var expiryPass: DispatchWorkItem?
    let expiryQueue = DispatchQueue(label: "accord.database.expiry", qos: .utility)

    /// What an open database holds.
    final class OpenState {
        let store: DocumentStore
        /// Blob properties' content, in the store's storage (files beside the store).
        let blobs: BlobStore
        let table: DocumentTable
        let fileLock: DatabaseFileLock
        var contents: [CollectionKey: CollectionContent] = [:]
        /// The last sequence given to a document change.
        var sequence: UInt64

        init(store: DocumentStore, table: DocumentTable, fileLock: DatabaseFileLock) throws(AccordError) {
            self.store = store
            blobs = try BlobStore(storage: store.storage)
            self.table = table
            self.fileLock = fileLock
            sequence = try table.lastSequence()
        }
    }

    /// Opens the database, creating it when missing.
    ///
    /// - Parameters:
    ///   - name: the database's name, which names its folder (the collection name rule:
    ///     letters, digits, `_ - %`, not starting with `_` or `%`).
    ///   - directory: where its folder goes; the current directory when nil.
    ///   - now: the wall clock document expirations are compared with.
    /// - Throws: `INVALID_NAME`; `DATABASE_LOCKED` when another `Database` has the files
    ///   open (in this process or another); `STORAGE_ERROR` or `STORAGE_CORRUPT` from the store.
    public init(
        name: String, directory: String? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(AccordError) {
        try CollectionName.validate(name, kind: "database")
        self.name = name
        self.now = now
        self.directory = directory ?? FileManager.default.currentDirectoryPath
        files = DatabaseFiles(name: name, directory: self.directory)
        try files.create()
        let fileLock = try DatabaseFileLock(path: files.lock)
        store = try DocumentStore(path: files.store)
        let opened = try OpenState(store: store, table: try DocumentTable(path: files.documents), fileLock: fileLock)
        state = opened
        syncObserver.database = self
        do {
            _ = try content(.defaultCollection, create: true)
            try purgeExpiredDocuments()
        } catch {
            try? close()
            throw error
        }
    }

    /// Whether a database of this name exists in `directory` (the current directory when nil).
    public static func exists(name: String, directory: String? = nil) -> Bool {
        DatabaseFiles(name: name, directory: directory ?? FileManager.default.currentDirectoryPath).exists
    }

    /// Deletes a database that is not open. `DATABASE_LOCKED` when it is open.
    public static func delete(name: String, directory: String? = nil) throws(AccordError) {
        try CollectionName.validate(name, kind: "database")
        let files = DatabaseFiles(name: name, directory: directory ?? FileManager.default.currentDirectoryPath)
        guard FileManager.default.fileExists(atPath: files.folder) else { return }
        let fileLock = try DatabaseFileLock(path: files.lock)
        defer { fileLock.release() }
        try files.remove()
    }

    /// Makes everything durable and closes; later calls throw `DATABASE_CLOSED`. Idempotent.
    public func close() throws(AccordError) {
        lock.lock()
        let closing = state
        state = nil
        expiryPass?.cancel()
        expiryPass = nil
        lock.unlock()
        guard let closing else { return }
        for content in closing.contents.values { content.close() }
        defer { closing.fileLock.release() }
        try closing.store.close()
    }

    /// Closes the database and deletes its files.
    public func delete() throws(AccordError) {
        try close()
        try files.remove()
    }

    // MARK: Collections

    /// The default collection (`_default` in the scope `_default`), which always exists.
    public func defaultCollection() throws(AccordError) -> Collection {
        try withOpen { _ throws(AccordError) in Collection(database: self, key: .defaultCollection) }
    }

    /// Creates a collection, or returns it when it exists. `INVALID_NAME` for a scope or
    /// collection name that breaks the rule.
    @discardableResult
    public func createCollection(name: String, scope: String? = nil) throws(AccordError) -> Collection {
        let key = try Self.key(name: name, scope: scope)
        return try withOpen { open throws(AccordError) in
            let id = try key.documentID()
            let isNew = !(try open.store.contains(id))
            _ = try content(key, create: true)
            if isNew { startSyncing(id) }
            return Collection(database: self, key: key)
        }
    }

    /// The collection, or nil when it does not exist.
    public func collection(name: String, scope: String? = nil) throws(AccordError) -> Collection? {
        let key = try Self.key(name: name, scope: scope)
        return try withOpen { open throws(AccordError) in
            try open.store.contains(try key.documentID()) ? Collection(database: self, key: key) : nil
        }
    }

    /// The collections of a scope (the default scope when nil), by name.
    public func collections(scope: String? = nil) throws(AccordError) -> [Collection] {
        let scopeName = scope ?? CollectionName.defaultName
        try CollectionName.validate(scopeName, kind: "scope")
        return try withOpen { open throws(AccordError) in
            try open.store.documents()
                .compactMap { CollectionKey(storeTitle: $0.title, id: $0.id) }
                .filter { $0.scope == scopeName }
                .sorted { $0.name < $1.name }
                .map { Collection(database: self, key: $0) }
        }
    }

    /// Deletes a collection with its documents (the deletion is local: the store
    /// document goes, as when a client deletes a document). The default collection
    /// cannot be deleted (`INVALID_ARGUMENT`).
    public func deleteCollection(name: String, scope: String? = nil) throws(AccordError) {
        let key = try Self.key(name: name, scope: scope)
        guard key != .defaultCollection else {
            throw AccordError(.invalidArgument, "the default collection cannot be deleted")
        }
        try withOpen { open throws(AccordError) in
            let id = try key.documentID()
            guard try open.store.contains(id) else { return }
            if let content = open.contents.removeValue(forKey: key) { content.close() }
            try open.store.delete(id)
            try open.table.removeCollection(key.tableName)
        }
    }

    static func key(name: String, scope: String?) throws(AccordError) -> CollectionKey {
        let scopeName = scope ?? CollectionName.defaultName
        try CollectionName.validate(scopeName, kind: "scope")
        try CollectionName.validate(name, kind: "collection")
        return CollectionKey(scope: scopeName, name: name)
    }

    // MARK: Shared helpers

    /// Runs `body` holding the lock, with the open state (`DATABASE_CLOSED` when closed).
    func withOpen<T>(_ body: (OpenState) throws(AccordError) -> T) throws(AccordError) -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let state else { throw AccordError(.databaseClosed, "the database \(name) is closed") }
        return try body(state)
    }

    /// The collection's loaded content; created when `create`, else `COLLECTION_NOT_FOUND`
    /// when missing. Loading brings the document table up to date with the store first.
    /// Caller holds the lock.
    func content(_ key: CollectionKey, create: Bool = false) throws(AccordError) -> CollectionContent {
        guard let open = state else { throw AccordError(.databaseClosed, "the database \(name) is closed") }
        if let loaded = open.contents[key] { return loaded }
        let id = try key.documentID()
        if try !open.store.contains(id) {
            guard create else {
                throw AccordError(
                    .collectionNotFound, "no collection \(key.name) in the scope \(key.scope)",
                    details: ["collection": key.name, "scope": key.scope])
            }
            try open.store.create(id, title: key.tableName)
        }
        let content = try CollectionContent(key: key, id: id, store: open.store)
        open.contents[key] = content
        try refreshTable(content, in: open)
        return content
    }
}
