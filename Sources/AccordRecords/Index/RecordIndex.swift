public import AccordCRDT
import AccordStore
import Foundation

/// The query index of one client store: SQLite tables that project the records of
/// every registered model in every document (``ModelTables``), kept current from each
/// transaction's changes, with the state vector each document's projection reflects.
///
/// Reads are synchronous and may run on any thread: one connection, one lock. Writes
/// come from the owner of the documents, which reads the changed records out of the
/// `Doc` it owns: either at once (``project(_:doc:changes:sequence:)``) or queued
/// (``enqueue(_:doc:changes:models:sequence:)``), written by a background thread or by
/// the next reader, whichever takes the lock first. Every use of the connection first
/// writes what is queued, so a read sees every change queued before it.
///
/// The index is derived data: deleting its file loses nothing (the next open projects
/// every document again). It is written with `synchronous=NORMAL`: a power loss may
/// lose its last commits, and the stored state vectors then ask for them again.
public final class RecordIndex: @unchecked Sendable {
    // Invariant: `connection`, `tables`, `tally` and `failures` are only touched under
    // `lock` (extensions in other files included).
    let lock = NSLock()
    let connection: SQLiteConnection
    var tables: [String: ModelTables] = [:]
    var tally = Counters()
    let queue = ProjectionQueue()
    /// The last queued projection that failed, by document (its rows may be stale).
    var failures: [DocumentID: AccordError] = [:]
    /// The document whose key ``documentKey(_:creating:)`` gave last (under the lock).
    var lastDocumentKey: (document: DocumentID, key: Int64)?
    /// The registered models, a copy of `tables`' schemas kept under its own lock.
    private let schemaLock = NSLock()
    private var registered: [String: ModelSchema] = [:]

    /// What the index did since it opened, for tests and diagnostics.
    public struct Counters: Sendable, Hashable {
        /// Records written to (or removed from) the tables by projection.
        public var projectedRecords = 0
        /// Records skipped because the document holds them in a shape that breaks the schema.
        public var malformedRecords = 0
    }

    /// Opens or creates the index at `path` (`:memory:` for one that lives in memory).
    public init(path: String) throws(AccordError) {
        var settings = SQLiteConnection.Settings()
        settings.synchronousFull = false
        settings.pageSize = Self.pageSize
        connection = try SQLiteConnection(path: path, settings: settings)
        try connection.execute("PRAGMA cache_size = -\(Self.pageCacheKiB)")
        // Statement journals (a many-row statement that may abort keeps a copy of the
        // pages it changes) in memory rather than in temporary files: they live for one
        // statement, and writing them out was system calls for nothing.
        try connection.execute("PRAGMA temp_store = MEMORY")
        try connection.defineTextFunction(SQLPredicate.foldFunction) { CaseFolding.fold(utf8: $0) }
        try Self.prepareLayout(connection)
    }

    /// The most the index's SQLite page cache holds (KiB; pages are allocated as used).
    /// SQLite's default is 2,000 KiB; the index file of a 100,000-record model (the
    /// insert benchmark's tasks) takes about 20 MB, and a batch of new records changes
    /// pages all over the indexes of random fields (a title index). With the default
    /// cache most of them were read back from the file and spilled to the WAL again
    /// within one transaction: most of the writer's system time. With 16 MiB the last
    /// fifth of that insert still spilled: 7,294 page writes to the WAL and 328 reads of
    /// the file, against 5,499 and 4 with 32 MiB (strace).
    static let pageCacheKiB = 32_768

    /// The page size of an index file this creates. Inserts are mostly B-tree work, and
    /// with 16 KiB pages (SQLite's default is 4 KiB) the trees are shallower and split
    /// less often: on the insert benchmark the writer took about a quarter less time
    /// (the instructions barely changed; fewer pages to find, allocate and log did it).
    static let pageSize = 16_384

    /// The layout version of the index's own tables. An index of another version is
    /// emptied and rebuilt (it is derived data: documents are projected again).
    /// 2: string sets as JSON arrays in their column, members tables keyed by member.
    /// 3: model tables hold a document's integer key (``documentKey(_:creating:)``).
    static let layoutVersion: Int64 = 3

    private static func prepareLayout(_ connection: SQLiteConnection) throws(AccordError) {
        var version: Int64 = 0
        try connection.prepare("PRAGMA user_version").forEachRow { version = $0.int64(0) }
        if version != layoutVersion {
            var tables: [String] = []
            try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").forEachRow { tables.append($0.text(0)) }
            for table in tables { try connection.execute("DROP TABLE \"\(table)\"") }
            try connection.execute("PRAGMA user_version = \(layoutVersion)")
        }
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS accord_index_models (name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS accord_index_documents (
                document TEXT PRIMARY KEY, state_vector BLOB NOT NULL, sequence INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS accord_index_document_keys (key INTEGER PRIMARY KEY, document TEXT NOT NULL UNIQUE);
            """)
    }

    public var counters: Counters { locked { tally } }

    /// The registered models, by name.
    /// Read without the connection's lock (a save asks for its model while the
    /// background writer may hold that lock for a whole batch).
    public var models: [String: ModelSchema] { schemaLock.locked { registered } }

    // MARK: Models

    /// Registers `models` (validated together with those already registered). A model
    /// registered again with the same schema is a no-op; one whose schema changed gets
    /// new tables, and every document's state vector is forgotten so the owner projects
    /// them again (``needsProjection(_:stateVector:)``). Nothing is written when
    /// validation fails.
    /// - Returns: the models whose tables were (re)created and need projecting.
    @discardableResult
    public func register(_ models: [ModelSchema]) throws(AccordError) -> [ModelSchema] {
        try locked { () throws(AccordError) -> [ModelSchema] in
            defer {
                let schemas = tables.mapValues(\.schema)
                schemaLock.locked { registered = schemas }
            }
            var combined = tables.mapValues(\.schema)
            for model in models { combined[model.name] = model }
            try ModelSchema.validate(combined.values.sorted { $0.name < $1.name })
            var created: [ModelSchema] = []
            try transaction { () throws(AccordError) in
                for model in models {
                    let fingerprint = model.fingerprint
                    let known = try storedFingerprint(model.name)
                    if known == fingerprint {
                        tables[model.name] = ModelTables(schema: model)
                        continue
                    }
                    if let old = tables[model.name] {
                        for statement in old.removal { try connection.execute(statement) }
                    }
                    // A table left by an earlier schema that this process never loaded.
                    if known != nil { try dropTables(named: model.name) }
                    let modelTables = ModelTables(schema: model)
                    for statement in modelTables.creation { try connection.execute(statement) }
                    try connection.cachedStatement("INSERT OR REPLACE INTO accord_index_models VALUES (?, ?)")
                        .run([.text(model.name), .text(fingerprint)])
                    tables[model.name] = modelTables
                    created.append(model)
                }
                if !created.isEmpty { try connection.execute("DELETE FROM accord_index_documents") }
            }
            return created
        }
    }

    // MARK: Projection

    /// Whether `document` needs projecting to reach the state `stateVector` at log
    /// position `sequence` (the store's last sequence for it): true unless the index
    /// already reflects exactly that. The sequence catches what a state vector cannot:
    /// a transaction that only deleted.
    public func needsProjection(_ document: DocumentID, stateVector: [UInt8], sequence: UInt64) throws(AccordError) -> Bool {
        try locked { () throws(AccordError) -> Bool in
            var stored: ([UInt8], Int64)?
            try connection.cachedStatement("SELECT state_vector, sequence FROM accord_index_documents WHERE document = ?")
                .forEachRow([.text(document.rawValue)]) { row in stored = (row.blob(0), row.int64(1)) }
            guard let stored else { return true }
            return stored.0 != stateVector || stored.1 != Int64(bitPattern: sequence)
        }
    }

    /// Records that the index reflects `document` at this state and log position,
    /// without projecting anything (its owner knows no change is waiting).
    public func markCurrent(_ document: DocumentID, stateVector: [UInt8], sequence: UInt64) throws(AccordError) {
        try locked { () throws(AccordError) in
            try storePosition(document, stateVector, sequence)
        }
    }

    /// Projects the records named in `changes` (model → record ids) from `doc`, the
    /// current state of `document`: each is re-read, then written or, when gone or
    /// malformed, removed. Records the changes do not name are not touched. Records the
    /// index has for models `changes` does not name stay as they are.
    public func project(
        _ document: DocumentID, doc: Doc, changes: [String: Set<String>], sequence: UInt64 = 0
    ) throws(AccordError) {
        try locked { () throws(AccordError) in
            try transaction { () throws(AccordError) in
                for (model, ids) in changes.sorted(by: { $0.key < $1.key }) {
                    guard let modelTables = tables[model] else { continue }
                    // Order does not matter inside the transaction.
                    for id in ids {
                        try write(id, of: modelTables, document: document, doc: doc)
                    }
                }
                try storePosition(document, doc.encodeStateVector(), sequence)
            }
        }
    }

    /// Brings every registered model's rows for `doc` in line with it (a document opened
    /// for the first time, changed while the index was not watching, or after a schema
    /// change): the document's records are compared with the rows the index has, and
    /// only the records that differ are written or removed. So a reopen after ten
    /// records changed writes ten rows (it still reads the whole document to find them).
    public func projectAll(_ document: DocumentID, doc: Doc, sequence: UInt64 = 0) throws(AccordError) {
        try locked { () throws(AccordError) in
            try transaction { () throws(AccordError) in
                for modelTables in tables.values.sorted(by: { $0.schema.name < $1.schema.name }) {
                    try reconcile(modelTables, document: document, doc: doc)
                }
                try storePosition(document, doc.encodeStateVector(), sequence)
            }
        }
    }

    /// Writes the records of one model that differ from the index's rows (under the lock).
    private func reconcile(_ modelTables: ModelTables, document: DocumentID, doc: Doc) throws(AccordError) {
        let read = try RecordLayout.records(of: modelTables.schema, in: doc)
        tally.malformedRecords += read.malformed.count
        let rows = try Self.select(
            modelTables.schema.name, filter: .all, options: QueryOptions(documents: [document]), connection, tables)
        // Keyed by the id's bytes: ids compare by code points.
        var stored: [[UInt8]: RecordData] = [:]
        for row in rows { stored[Array(row.id.utf8)] = row.record }
        for record in read.records {
            let key = Array(record.id.utf8)
            // The index holds absent and null alike, as absent.
            let comparable = RecordData(id: record.id, values: record.values.filter { $0.value != .null })
            if let row = stored.removeValue(forKey: key), row == comparable { continue }
            try insert(record, into: modelTables, document: document)
            tally.projectedRecords += 1
        }
        // Rows whose record is gone (deleted, or now malformed).
        for row in stored.values {
            try deleteRow(row.id, of: modelTables, document: document)
            tally.projectedRecords += 1
        }
    }

    /// Removes everything the index holds for `document` (closed and evicted, or deleted).
    public func remove(_ document: DocumentID) throws(AccordError) {
        try locked { () throws(AccordError) in
            try transaction { () throws(AccordError) in
                for modelTables in tables.values { try deleteRows(of: modelTables, document: document) }
                try connection.cachedStatement("DELETE FROM accord_index_documents WHERE document = ?")
                    .run([.text(document.rawValue)])
            }
        }
    }

    // MARK: Writing rows (under the lock)

    private func write(_ id: String, of modelTables: ModelTables, document: DocumentID, doc: Doc) throws(AccordError) {
        let record: RecordData?
        do {
            record = try RecordLayout.record(id, of: modelTables.schema, in: doc)
        } catch {
            tally.malformedRecords += 1
            record = nil
        }
        if let record {
            try insert(record, into: modelTables, document: document)
        } else {
            try deleteRow(id, of: modelTables, document: document)
        }
        tally.projectedRecords += 1
    }

    /// Writes a record's row (replacing an earlier one) and its string-set members.
    func insert(_ record: RecordData, into modelTables: ModelTables, document: DocumentID) throws(AccordError) {
        try insertMany([record], into: modelTables, document: document)
    }

    /// Removes a record's row and its members (first: the row lists them).
    func deleteRow(_ id: String, of modelTables: ModelTables, document: DocumentID) throws(AccordError) {
        // A document without a key has no rows.
        guard let documentKey = try documentKey(document, creating: false) else { return }
        try clearMembers(of: [id], in: modelTables, document: documentKey)
        try connection.cachedStatement("DELETE FROM \(modelTables.records) WHERE document = ? AND id = ?")
            .run([.integer(documentKey), .text(id)])
    }

    private func deleteRows(of modelTables: ModelTables, document: DocumentID) throws(AccordError) {
        guard let documentKey = try documentKey(document, creating: false) else { return }
        try clearMembers(ofDocument: documentKey, in: modelTables)
        try connection.cachedStatement("DELETE FROM \(modelTables.records) WHERE document = ?").run([.integer(documentKey)])
    }

    /// The integer that stands for `document` in the model tables: their rows, members
    /// and indexes hold it rather than the id's text (shorter keys, compared as
    /// integers: the index writer took about 8% fewer instructions). Made on first use
    /// and kept for good; nil when `creating` is false and the document has none.
    /// Reads join `accord_index_document_keys` back to the text, so results, order and
    /// cursors are as they were.
    func documentKey(_ document: DocumentID, creating: Bool) throws(AccordError) -> Int64? {
        // The writer asks for one document's key per chunk of rows.
        if let last = lastDocumentKey, last.document.rawValue.utf8.elementsEqual(document.rawValue.utf8) { return last.key }
        let text = SQLiteValue.text(document.rawValue)
        var key: Int64?
        try connection.cachedStatement("SELECT key FROM accord_index_document_keys WHERE document = ?")
            .forEachRow([text]) { row in key = row.int64(0) }
        if key == nil, creating {
            try connection.cachedStatement("INSERT INTO accord_index_document_keys (document) VALUES (?)").run([text])
            key = connection.lastInsertRowID
        }
        if let key { lastDocumentKey = (document, key) }
        return key
    }

    func storePosition(_ document: DocumentID, _ stateVector: [UInt8], _ sequence: UInt64) throws(AccordError) {
        try connection.cachedStatement("INSERT OR REPLACE INTO accord_index_documents VALUES (?, ?, ?)")
            .run([.text(document.rawValue), .blob(stateVector), .integer(Int64(bitPattern: sequence))])
    }

    private func storedFingerprint(_ model: String) throws(AccordError) -> String? {
        var fingerprint: String?
        try connection.cachedStatement("SELECT fingerprint FROM accord_index_models WHERE name = ?")
            .forEachRow([.text(model)]) { row in fingerprint = row.text(0) }
        return fingerprint
    }

    /// Drops the tables of `model` whatever schema made them (their names start with
    /// `r_<model>` or `m_<model>_`; indexes go with their tables).
    private func dropTables(named model: String) throws(AccordError) {
        var names: [String] = []
        try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND (name = ? OR substr(name, 1, ?) = ?)")
            .forEachRow([.text("r_\(model)"), .integer(Int64(model.utf8.count + 3)), .text("m_\(model)_")]) { row in
                names.append(row.text(0))
            }
        for name in names { try connection.execute("DROP TABLE \"\(name)\"") }
    }

    /// Runs `body` in one SQLite transaction (under the lock already held).
    func transaction(_ body: () throws(AccordError) -> Void) throws(AccordError) {
        do {
            try connection.transaction { try body() }
        } catch let error as AccordError {
            // A key made in the transaction is gone, and its number may be given again.
            lastDocumentKey = nil
            throw error
        } catch {
            lastDocumentKey = nil
            throw AccordError(.ioError, "record index transaction failed: \(error)")
        }
    }

    /// Runs `body` with the connection and tables, under the lock (the query side).
    func reading<T>(_ body: (SQLiteConnection, [String: ModelTables]) throws(AccordError) -> T) throws(AccordError) -> T {
        try locked { () throws(AccordError) -> T in try body(connection, tables) }
    }

    /// Runs `body` under the lock, after writing the queued projections. `NSLock.withLock`
    /// rethrows untyped errors; this keeps `AccordError`.
    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        writeQueued()
        return try body()
    }
}
