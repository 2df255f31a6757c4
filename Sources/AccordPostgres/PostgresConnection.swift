import AccordCRDT
import CPostgres

/// One libpq connection with binary parameters and results, prepared statements, and
/// pipelined batches that commit as one transaction in one round trip.
///
/// Not thread-safe: one owner uses it at a time (as ``StorageAdapter`` promises). A
/// lost connection is reconnected on the next call; calls that failed because of the
/// loss throw `POSTGRES_UNAVAILABLE` and say nothing about whether a write landed
/// (``PostgresStorageAdapter`` finds that out itself).
public final class PostgresConnection {
    private var handle: OpaquePointer?
    private let conninfo: String
    /// Registered statements, by name; each is prepared on a connection the first time
    /// it runs there (a connection that never runs one never pays its round trip).
    private var statements: [String: String] = [:]
    /// Statements prepared on the current connection.
    private var preparedHere: Set<String> = []
    /// What runs once on every new connection before statements are prepared.
    private let setup: String

    /// Connects to `url` (a libpq URI or `key=value` string, e.g.
    /// `postgres://accord@127.0.0.1:5432/accord`). `setup` is SQL run on every new
    /// connection (e.g. `SET search_path`).
    public init(url: String, setup: String = "") throws(AccordError) {
        try Self.checkConninfo(url)
        conninfo = url
        self.setup = setup
        try connect()
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Refuses a malformed connection string before libpq tries it, without echoing it
    /// (it may hold a password).
    private static func checkConninfo(_ url: String) throws(AccordError) {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            let reason = message.map { String(cString: $0) } ?? "unparseable"
            if let message { PQfreemem(message) }
            throw AccordError(.invalidArgument, "the PostgreSQL connection string is malformed: \(reason.trimmed)")
        }
        PQconninfoFree(options)
    }

    // MARK: Connection

    var isConnected: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The server process serving this connection (`pg_backend_pid()`), 0 when none.
    public var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// Opens a new connection in place of the current one (after a failure a caller
    /// does not retry through an adapter).
    public func reconnect() throws(AccordError) { try connect() }

    /// Opens a new connection (closing the old one), runs the setup and prepares the
    /// registered statements.
    func connect() throws(AccordError) {
        if let handle { PQfinish(handle) }
        preparedHere = []
        handle = PQconnectdb(conninfo)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let reason = handle.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            throw AccordError(
                .postgresUnavailable, "cannot connect to PostgreSQL: \(reason.trimmed)",
                details: ["reason": reason.trimmed])
        }
        // Notices (e.g. what DROP ... CASCADE dropped) would go to stderr; nothing of ours
        // reads them.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        if !setup.isEmpty { try execute(setup) }
    }

    /// Reconnects when the connection is gone; a no-op otherwise.
    func ensureConnected() throws(AccordError) {
        if !isConnected { try connect() }
    }

    private func connection() throws(AccordError) -> OpaquePointer {
        try ensureConnected()
        return handle!
    }

    // MARK: Statements

    /// Registers a statement under `name`, prepared on each connection before its first
    /// use there. Nothing is sent now.
    public func register(_ name: String, _ sql: String) {
        statements[name] = sql
    }

    /// Prepares `name` on the current connection unless it already is.
    private func ensurePrepared(_ name: String) throws(AccordError) {
        guard !preparedHere.contains(name) else { return }
        guard let sql = statements[name] else {
            throw AccordError(.invalidArgument, "no statement is registered as \(name)")
        }
        let result = PQprepare(try connection(), name, sql, 0, nil)
        defer { PQclear(result) }
        _ = try rows(of: result, statement: name)
        preparedHere.insert(name)
    }

    /// Runs SQL text with no parameters (several statements allowed).
    public func execute(_ sql: String) throws(AccordError) {
        let result = PQexec(try connection(), sql)
        defer { PQclear(result) }
        _ = try rows(of: result, statement: "execute")
    }

    /// Runs one statement with parameters (unnamed, not prepared) and binary results.
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws(AccordError) -> PostgresRows {
        let laidOut = try PostgresParameters(parameters)
        let conn = try connection()
        let result = laidOut.withPointers { values, lengths, formats in
            PQexecParams(conn, sql, laidOut.count, nil, values, lengths, formats, 1)
        }
        defer { PQclear(result) }
        return try rows(of: result, statement: "query")
    }

    /// Runs a registered statement with binary results.
    public func run(_ name: String, _ parameters: [PostgresValue]) throws(AccordError) -> PostgresRows {
        let laidOut = try PostgresParameters(parameters)
        let conn = try connection()
        try ensurePrepared(name)
        let result = laidOut.withPointers { values, lengths, formats in
            PQexecPrepared(conn, name, laidOut.count, values, lengths, formats, 1)
        }
        defer { PQclear(result) }
        return try rows(of: result, statement: name)
    }

    // MARK: Results

    /// The rows of a finished result, or the coded error it reports.
    func rows(of result: OpaquePointer?, statement: String) throws(AccordError) -> PostgresRows {
        guard let result else { throw lostOrFailed(nil, statement: statement) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_PIPELINE_SYNC:
            var rows = PostgresRows()
            rows.affected = Int(String(cString: PQcmdTuples(result))) ?? 0
            let columns = PQnfields(result)
            for row in 0..<PQntuples(result) {
                var values: [[UInt8]?] = []
                values.reserveCapacity(Int(columns))
                for column in 0..<columns {
                    if PQgetisnull(result, row, column) != 0 {
                        values.append(nil)
                    } else {
                        let length = Int(PQgetlength(result, row, column))
                        let start = PQgetvalue(result, row, column)!
                        values.append(start.withMemoryRebound(to: UInt8.self, capacity: length) {
                            Array(UnsafeBufferPointer(start: $0, count: length))
                        })
                    }
                }
                rows.rows.append(values)
            }
            return rows
        default:
            throw lostOrFailed(result, statement: statement)
        }
    }

    /// The coded error for a failed result: a lost connection is
    /// `POSTGRES_UNAVAILABLE`; a server error carries its SQLSTATE.
    func lostOrFailed(_ result: OpaquePointer?, statement: String) -> AccordError {
        let sqlstate = result.flatMap { accord_pq_sqlstate($0) }.map { String(cString: $0) }
        let message: String
        if let result, let primary = accord_pq_primary_message(result) {
            message = String(cString: primary)
        } else if let handle {
            message = String(cString: PQerrorMessage(handle)).trimmed
        } else {
            message = "no connection"
        }
        return PostgresErrorMapping.error(sqlstate: sqlstate, message: message, statement: statement, connected: isConnected)
    }

    // MARK: Pipelines

    /// Sends every call, then one sync, so PostgreSQL runs them as one implicit
    /// transaction that commits at the sync: all or nothing, in one round trip for a
    /// batch that fits the socket buffers. Returns each call's rows, in order.
    ///
    /// Results are read back every `flushEvery` calls (with a flush request, still
    /// inside the same transaction) so that neither side's socket buffer can fill while
    /// the other waits, which the libpq manual warns a blocking pipeline can deadlock on.
    ///
    /// `followUp` calls (small, a few) are sent after the sync, each its own implicit
    /// transaction that runs once the calls' transaction has committed, still in the
    /// same round trip. Best effort: their results and errors are read and dropped, and
    /// never make the calls' transaction look failed.
    func pipeline(
        _ calls: [(name: String, parameters: [PostgresValue])], then followUp: [(name: String, parameters: [PostgresValue])] = [],
        flushEvery: Int = 512
    ) throws(AccordError) -> [PostgresRows] {
        let conn = try connection()
        // PQprepare cannot run inside a pipeline: prepare what the calls need first.
        for name in Set(calls.map(\.name) + followUp.map(\.name)) { try ensurePrepared(name) }
        guard PQenterPipelineMode(conn) == 1 else { throw lostOrFailed(nil, statement: "pipeline") }
        var results: [PostgresRows] = []
        results.reserveCapacity(calls.count)
        var firstError: AccordError?
        var sent = 0
        func readPending() {
            while results.count < sent {
                let result = PQgetResult(conn)
                if result == nil, !isConnected {
                    firstError = firstError ?? lostOrFailed(nil, statement: "pipeline")
                    return
                }
                do {
                    results.append(try rows(of: result, statement: calls[results.count].name))
                } catch {
                    firstError = firstError ?? error
                    results.append(PostgresRows())
                }
                PQclear(result)
                // Each call's results end with a null result.
                while let extra = PQgetResult(conn) { PQclear(extra) }
            }
        }
        for call in calls {
            let laidOut: PostgresParameters
            do { laidOut = try PostgresParameters(call.parameters) } catch {
                firstError = error
                break
            }
            let queued = laidOut.withPointers { values, lengths, formats in
                PQsendQueryPrepared(conn, call.name, laidOut.count, values, lengths, formats, 1)
            }
            guard queued == 1 else {
                firstError = lostOrFailed(nil, statement: call.name)
                break
            }
            sent += 1
            if sent % flushEvery == 0 {
                guard PQsendFlushRequest(conn) == 1, PQflush(conn) == 0 else {
                    firstError = lostOrFailed(nil, statement: call.name)
                    break
                }
                readPending()
                if firstError != nil { break }
            }
        }
        // A failure before the sync still needs the sync: it ends (and rolls back) the
        // implicit transaction. The calls not sent were never part of it.
        if isConnected, PQpipelineSync(conn) == 1 {
            // Queued before reading, so they travel with the sync; they wait for its commit.
            let followed = firstError == nil && !followUp.isEmpty && sendFollowUp(followUp, on: conn)
            readPending()
            if !readSync(conn) { firstError = firstError ?? lostOrFailed(nil, statement: "sync") }
            if followed, isConnected {
                // Each call's result (or error) and its null, then the second sync; read
                // even after a failure above, or the connection could not leave pipeline mode.
                for _ in followUp {
                    while let result = PQgetResult(conn) { PQclear(result) }
                }
                _ = readSync(conn)
            }
        } else {
            firstError = firstError ?? lostOrFailed(nil, statement: "sync")
        }
        if isConnected { _ = PQexitPipelineMode(conn) }
        if let firstError { throw firstError }
        return results
    }
}

extension PostgresConnection {
    /// Queues `calls` and a sync of their own (pipeline mode); false if any could not be.
    fileprivate func sendFollowUp(_ calls: [(name: String, parameters: [PostgresValue])], on conn: OpaquePointer) -> Bool {
        for call in calls {
            guard let laidOut = try? PostgresParameters(call.parameters) else { return false }
            let queued = laidOut.withPointers { values, lengths, formats in
                PQsendQueryPrepared(conn, call.name, laidOut.count, values, lengths, formats, 1)
            }
            guard queued == 1 else { return false }
        }
        return PQpipelineSync(conn) == 1
    }

    /// Reads results up to the next sync; false when the connection ended first.
    fileprivate func readSync(_ conn: OpaquePointer) -> Bool {
        while let result = PQgetResult(conn) {
            let isSync = PQresultStatus(result) == PGRES_PIPELINE_SYNC
            PQclear(result)
            if isSync { return true }
        }
        return false
    }
}

extension String {
    var trimmed: String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        return String(text)
    }
}
