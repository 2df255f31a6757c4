public import AccordCRDT
public import AccordStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``StorageAdapter`` on PostgreSQL: documents, their logs and everything else the
/// stores keep, in three tables of one schema, so several `accord serve` nodes can share
/// one database.
///
/// - **Durability**: a batch is one transaction, committed before `commit` returns
///   (PostgreSQL's default `synchronous_commit = on` flushes the WAL; on a primary with
///   synchronous replicas, to them as configured).
/// - **One round trip per batch**: the batch is sent as a libpq pipeline that ends in a
///   single sync, which PostgreSQL runs as one implicit transaction. Its appends to
///   shared logs are one statement at its end; their notices follow in a second
///   transaction in the same pipeline, once the first has committed (see
///   ``PostgresStorageSchema``).
/// - **Retries**: a serialization failure or deadlock runs the batch again; a lost
///   connection is reconnected and, because a commit whose answer was lost may have
///   landed, the adapter first asks whether it did. Each batch also stamps this adapter's
///   row in `accord_writers` with its batch number, so the answer is exact rather than a
///   guess, and an append is never applied twice.
/// - **Blob content** stays in PostgreSQL as the blob store's chunks (no directory) unless
///   `blobDirectory` names one; a cluster needs the default, since every node must read
///   every blob.
public final class PostgresStorageAdapter: StorageAdapter {
    public let connection: PostgresConnection
    public let schema: String
    public let blobDirectory: BlobDirectory?

    /// Logs that several adapters append to at once (a cluster's document logs):
    /// PostgreSQL numbers their entries, and each append notifies the schema's channel
    /// (see ``PostgresStorageSchema``). Empty for one node.
    public let sharedLogs: Set<StorageCategory>

    /// Identifies this adapter's row in `accord_writers`, and its appends in notifications.
    public let writerID: [UInt8]
    private var batchNumber: Int64 = 0

    /// How many times a batch or read is tried before its failure is thrown.
    static let maxAttempts = 5

    /// Connects to `url` and uses (creating it if needed) `schema`.
    /// Connects to `url` and uses (creating it if needed) `schema`. Appends to a log in
    /// `sharedLogs` take the next numbers PostgreSQL gives that log, whatever sequence
    /// the batch names (which only orders them and is a floor), so several adapters may
    /// append to one log without colliding.
    public init(
        url: String, schema: String = "accord", blobDirectory: BlobDirectory? = nil, sharedLogs: Set<StorageCategory> = []
    ) throws(AccordError) {
        try PostgresStorageSchema.checkName(schema)
        self.schema = schema
        self.blobDirectory = blobDirectory
        self.sharedLogs = sharedLogs
        var generator = SystemRandomNumberGenerator()
        writerID = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        connection = try PostgresConnection(url: url, setup: "SET search_path TO \(schema)")
        for statement in PostgresStorageSchema.statements { connection.register(statement.name, statement.sql) }
        // Opening a schema that is already current costs one query, not the DDL; a
        // newer layout is refused before anything is created or replaced in it.
        let found = try Self.layoutVersion(connection)
        if let found, found > PostgresStorageSchema.version {
            throw AccordError(
                .storageError, "schema \(schema) was written by a newer Accord (layout \(found))",
                details: ["schema_version": String(found)])
        }
        if found != PostgresStorageSchema.version {
            try connection.execute(PostgresStorageSchema.creation(schema))
        }
        _ = try connection.run("register_writer", [.bytes(writerID)])
    }

    /// The layout recorded in the schema, nil for a schema without Accord's tables.
    private static func layoutVersion(_ connection: PostgresConnection) throws(AccordError) -> Int64? {
        do {
            return try connection.query("SELECT max(version) FROM accord_meta").firstInt64
        } catch where error.details["sqlstate"] == "42P01" {  // undefined_table
            return nil
        }
    }

    deinit {
        // Best effort, and never a reconnect from deinit: a row left behind is removed
        // by the next adapter that opens the schema a week later.
        if connection.isConnected { _ = try? connection.run("forget_writer", [.bytes(writerID)]) }
    }

    // MARK: Reading

    public func read(_ category: StorageCategory, key: String) throws -> [UInt8]? {
        try reading("read", [Self.name(category), .text(key)]).rows.first?[0]
    }

    public func keys(in category: StorageCategory) throws -> [String] {
        try reading("keys", [Self.name(category)]).rows.map { String(decoding: $0[0] ?? [], as: UTF8.self) }
    }

    public func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        guard after < UInt64(Int64.max), limit > 0 else { return [] }
        let rows = try reading("read_log", [Self.name(category), .text(key), .int64(Int64(after)), .int64(Int64(limit))])
        return try rows.rows.map { row in
            guard let sequence = row[0].flatMap(PostgresRows.int64), let value = row[1] else {
                throw AccordError(.storageCorrupt, "a log row of \(category)/\(key) is malformed")
            }
            return StorageLogEntry(sequence: UInt64(sequence), value: value)
        }
    }

    public func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64? {
        try reading("last_sequence", [Self.name(category), .text(key)]).firstInt64.map { UInt64($0) }
    }

    public func logKeys(in category: StorageCategory) throws -> [String] {
        try reading("log_keys", [Self.name(category)]).rows.map { String(decoding: $0[0] ?? [], as: UTF8.self) }
    }

    /// Runs a read, reconnecting and trying again when the connection was lost (a read
    /// can be repeated safely).
    private func reading(_ statement: String, _ parameters: [PostgresValue]) throws(AccordError) -> PostgresRows {
        var attempt = 1
        while true {
            do {
                return try connection.run(statement, parameters)
            } catch where PostgresErrorMapping.isRetryable(error) && attempt < Self.maxAttempts {
                Self.pause(attempt)
                attempt += 1
                // libpq may not have marked a connection the server ended as bad yet.
                if error.code == .postgresUnavailable { try? connection.connect() }
            }
        }
    }

    // MARK: Writing

    public func commit(_ batch: [StorageOperation]) throws {
        guard !batch.isEmpty else { return }
        let planned = try Self.plan(batch, sharedLogs: sharedLogs, writer: writerID)
        batchNumber += 1
        // First, so the shared appends stay last (their head rows are held from there
        // to the commit only).
        var calls: [(name: String, parameters: [PostgresValue])] = [("mark_batch", [.bytes(writerID), .int64(batchNumber)])]
        calls += planned.calls
        try run(calls, batch: batchNumber, afterCommit: planned.notifiesAfterCommit ? [("notify_pending", [])] : [],
                appendedTo: planned.sharedKeys)
    }

    public func wipeAll() throws {
        batchNumber += 1
        try run(
            [("wipe_records", []), ("wipe_logs", []), ("wipe_heads", []), ("mark_batch", [.bytes(writerID), .int64(batchNumber)])],
            batch: batchNumber)
        // After the rows, as the SQLite adapter does: a crash in between leaves files no
        // index names (collected later), never an index naming a removed file.
        try blobDirectory?.removeAll()
    }

    /// Runs one batch's pipeline until it commits, fails for good, or is found to have
    /// committed on a connection that was lost before its answer arrived. Returns the
    /// calls' results, or nil when it found the batch committed without seeing them.
    ///
    /// `afterCommit` runs in a transaction of its own right behind the batch's, in the
    /// same round trip (the batch's notices); its failure is not the batch's. When the
    /// batch is found committed after a lost answer, those notices are gone with the
    /// connection: the heads of `appendedTo` are announced instead, naming no writer, so
    /// every node reads those logs up to there.
    @discardableResult
    private func run(
        _ calls: [(name: String, parameters: [PostgresValue])], batch: Int64,
        afterCommit: [(name: String, parameters: [PostgresValue])] = [],
        appendedTo sharedKeys: [StorageCategory: [[UInt8]]] = [:]
    ) throws(AccordError) -> [PostgresRows]? {
        var attempt = 1
        while true {
            do {
                return try connection.pipeline(calls, then: afterCommit)
            } catch where PostgresErrorMapping.isRetryable(error) && attempt < Self.maxAttempts {
                if error.code == .postgresUnavailable, try landed(batch) {
                    for (category, keys) in sharedKeys.sorted(by: { $0.key < $1.key }) {
                        _ = try? connection.run("hint_heads", [Self.name(category), .bytesArray(keys)])
                    }
                    return nil
                }
                Self.pause(attempt)
                attempt += 1
            }
        }
    }

    /// Whether `batch` committed, asked on a new connection; false when the database
    /// cannot be reached yet (the caller pauses and tries the batch again, and asks
    /// again if that fails too).
    private func landed(_ batch: Int64) throws(AccordError) -> Bool {
        do {
            try connection.connect()
            return try connection.run("writer_batch", [.bytes(writerID)]).firstInt64 == batch
        } catch where error.code == .postgresUnavailable {
            return false
        }
    }

    /// A batch's statements, and what follows its commit.
    struct Plan {
        var calls: [(name: String, parameters: [PostgresValue])]
        /// The shared appends' notices wait for `notify_pending` after the commit.
        var notifiesAfterCommit = false
        /// Every shared log the batch appends to, by category (sorted keys).
        var sharedKeys: [StorageCategory: [[UInt8]]] = [:]
    }

    /// The statements for a batch. Its appends to shared logs, when it neither truncates
    /// nor deletes one (a fold or a delete, never mixed with appends by the document
    /// store, but allowed), become one `append_shared_many` per category at the end, in
    /// key order, each log's entries in the batch's order; everything else keeps its
    /// order (``calls(for:sharedLogs:writer:)``).
    static func plan(
        _ batch: [StorageOperation], sharedLogs: Set<StorageCategory>, writer: [UInt8]
    ) throws(AccordError) -> Plan {
        let reordersSafely = !sharedLogs.isEmpty && !batch.contains { operation in
            switch operation {
            case .truncateLog(let category, _, _), .deleteLog(let category, _): sharedLogs.contains(category)
            default: false
            }
        }
        guard reordersSafely else {
            var plan = Plan(calls: try calls(for: batch, sharedLogs: sharedLogs, writer: writer))
            for operation in batch {
                if case .append(let category, let key, _, _) = operation, sharedLogs.contains(category) {
                    plan.sharedKeys[category, default: []].append(Array(key.utf8))
                }
            }
            for (category, keys) in plan.sharedKeys { plan.sharedKeys[category] = Set(keys).sorted { $0.lexicographicallyPrecedes($1) } }
            return plan
        }
        var others: [StorageOperation] = []
        // Per category and log: the sequences (the first is the floor) and values.
        var shared: [StorageCategory: [[UInt8]: (sequences: [UInt64], values: [[UInt8]])]] = [:]
        for operation in batch {
            guard case .append(let category, let key, let sequence, let value) = operation, sharedLogs.contains(category) else {
                others.append(operation)
                continue
            }
            guard StorageLogEntry.validSequences.contains(sequence) else {
                throw AccordError(.invalidArgument, "log sequence \(sequence) is outside 1...2^63-1")
            }
            let name = Array(key.utf8)
            if let last = shared[category]?[name]?.sequences.last, sequence <= last {
                throw AccordError(
                    .invalidArgument, "log sequence \(sequence) is not after \(last)",
                    details: ["category": category.rawValue, "key": key])
            }
            shared[category, default: [:]][name, default: ([], [])].sequences.append(sequence)
            shared[category]![name]!.values.append(value)
        }
        var plan = Plan(calls: try calls(for: others), notifiesAfterCommit: !shared.isEmpty)
        for (category, logs) in shared.sorted(by: { $0.key < $1.key }) {
            let keys = logs.keys.sorted { $0.lexicographicallyPrecedes($1) }
            plan.sharedKeys[category] = keys
            plan.calls.append(("append_shared_many", [
                name(category), .bytesArray(keys),
                .int64Array(keys.map { Int64(logs[$0]!.sequences[0]) }),
                .int64Array(keys.map { Int64(logs[$0]!.values.count) }),
                .bytesArray(keys.flatMap { logs[$0]!.values }), .bytes(writer),
            ]))
        }
        return plan
    }

    /// The statements for a batch, in its order. Consecutive appends to one log become
    /// one `append` call with arrays; their order is checked here (strictly increasing),
    /// and against the log's last entry by PostgreSQL.
    ///
    /// Appends to a shared log become `append_shared` calls, and the batch starts by
    /// locking the heads of every shared log it appends to in one order (category, then
    /// key bytes), so two batches over the same documents wait for each other instead
    /// of deadlocking (which PostgreSQL would only notice after `deadlock_timeout`).
    static func calls(
        for batch: [StorageOperation], sharedLogs: Set<StorageCategory> = [], writer: [UInt8] = []
    ) throws(AccordError) -> [(name: String, parameters: [PostgresValue])] {
        var calls: [(name: String, parameters: [PostgresValue])] = []
        var run: (category: StorageCategory, key: String, sequences: [Int64], values: [[UInt8]])?
        var sharedKeys: [StorageCategory: Set<[UInt8]>] = [:]
        func endRun() {
            guard let current = run else { return }
            if sharedLogs.contains(current.category) {
                sharedKeys[current.category, default: []].insert(Array(current.key.utf8))
                calls.append(("append_shared", [
                    name(current.category), .text(current.key), .int64Array(current.sequences),
                    .bytesArray(current.values), .bytes(writer),
                ]))
            } else {
                calls.append(("append", [name(current.category), .text(current.key), .int64Array(current.sequences), .bytesArray(current.values)]))
            }
            run = nil
        }
        for operation in batch {
            if case .append(let category, let key, let sequence, let value) = operation {
                guard StorageLogEntry.validSequences.contains(sequence) else {
                    throw AccordError(.invalidArgument, "log sequence \(sequence) is outside 1...2^63-1")
                }
                if let current = run, current.category == category, current.key.utf8.elementsEqual(key.utf8) {
                    guard let last = current.sequences.last, Int64(sequence) > last else {
                        throw AccordError(
                            .invalidArgument, "log sequence \(sequence) is not after \(current.sequences.last ?? 0)",
                            details: ["category": category.rawValue, "key": key])
                    }
                    run?.sequences.append(Int64(sequence))
                    run?.values.append(value)
                } else {
                    endRun()
                    run = (category, key, [Int64(sequence)], [value])
                }
                continue
            }
            endRun()
            switch operation {
            case .put(let category, let key, let value):
                calls.append(("put", [name(category), .text(key), .bytes(value)]))
            case .delete(let category, let key):
                calls.append(("delete", [name(category), .text(key)]))
            case .truncateLog(let category, let key, let through):
                calls.append(("truncate_log", [name(category), .text(key), .int64(Int64(clamping: through))]))
            case .deleteLog(let category, let key):
                calls.append(("delete_log", [name(category), .text(key)]))
            case .append:
                break
            }
        }
        endRun()
        let locks = sharedKeys.sorted { $0.key < $1.key }.map { category, keys in
            (name: "lock_heads", parameters: [name(category), PostgresValue.bytesArray(keys.sorted { $0.lexicographicallyPrecedes($1) })])
        }
        return locks + calls
    }

    /// A category as a statement parameter (`bytea`, compared byte for byte).
    static func name(_ category: StorageCategory) -> PostgresValue { .text(category.rawValue) }

    /// Backs off before another attempt: 20, 40, 80, 160 ms.
    private static func pause(_ attempt: Int) {
        usleep(useconds_t(20_000 << min(attempt - 1, 4)))
    }
}

extension PostgresStorageAdapter: LogNumberingAdapter {
    public func numbersLogs(in category: StorageCategory) -> Bool { sharedLogs.contains(category) }

    /// One transaction: `accord_append_shared` takes the log's next number from its head
    /// row (locked to the commit, so two nodes never take the same one). When the answer
    /// was lost but the batch landed, the entry is found again as the log's latest entry
    /// holding `value` (a listing names a document once per ownership, so that is ours,
    /// or a later equal entry that counts the same).
    public func appendNext(_ category: StorageCategory, key: String, value: [UInt8]) throws -> UInt64 {
        guard sharedLogs.contains(category) else {
            throw AccordError(.invalidArgument, "the log category \(category) is not numbered by PostgreSQL",
                              details: ["category": category.rawValue])
        }
        batchNumber += 1
        let calls: [(name: String, parameters: [PostgresValue])] = [
            ("append_shared", [Self.name(category), .text(key), .int64Array([1]), .bytesArray([value]), .bytes(writerID)]),
            ("mark_batch", [.bytes(writerID), .int64(batchNumber)]),
        ]
        if let results = try run(calls, batch: batchNumber) {
            guard let first = results.first?.firstInt64, first > 0 else {
                throw AccordError(.storageCorrupt, "appending to \(category)/\(key) returned no sequence")
            }
            return UInt64(first)
        }
        guard let found = try reading("latest_with_value", [Self.name(category), .text(key), .bytes(value)]).firstInt64 else {
            throw AccordError(.storageCorrupt, "an append to \(category)/\(key) committed but its entry is gone")
        }
        return UInt64(found)
    }
}
