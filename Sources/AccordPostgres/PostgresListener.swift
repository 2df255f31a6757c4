import AccordCRDT
import AccordStore
import CPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// LISTENs on one channel over a libpq connection of its own, on a thread of its own
/// that waits on the connection's socket, and hands every notification's payload to
/// `onEvent`.
///
/// A notification is a hint, never the only copy of anything: when the connection is
/// lost, notifications sent meanwhile are gone, so after every (re)connect the listener
/// reports `.listening`, and the consumer catches up from the stored log. Reconnects
/// back off from 100 ms to 5 s. `onEvent` runs on the listener's thread; keep it short.
public final class PostgresListener: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `handle` is touched only by the listener
    // thread; `stopped` and `connected` only under `lock`.

    public enum Event: Sendable {
        /// LISTEN is in place (first time or after a reconnect): anything sent before may
        /// have been missed.
        case listening
        /// The connection was lost; reconnecting.
        case lost(reason: String)
        /// One notification's payload.
        case notification(String)
    }

    private let conninfo: String
    private let channel: String
    private let onEvent: @Sendable (Event) -> Void
    private let lock = NSLock()
    private var stopped = false
    private var connected = false
    private var thread: Thread?
    private var handle: OpaquePointer?

    /// Starts listening on `channel` (a schema name: lower-case letters, digits, `_`).
    public init(url: String, channel: String, onEvent: @escaping @Sendable (Event) -> Void) throws(AccordError) {
        try PostgresStorageSchema.checkName(channel)
        conninfo = url
        self.channel = channel
        self.onEvent = onEvent
        let thread = Thread { [self] in run() }
        thread.name = "accord.postgres.listen"
        self.thread = thread
        thread.start()
    }

    /// Whether LISTEN is in place right now.
    public var isListening: Bool { lock.locked { connected } }

    /// Stops the thread (within about a second) and closes the connection.
    public func stop() {
        lock.locked { stopped = true }
    }

    private var isStopped: Bool { lock.locked { stopped } }

    private func run() {
        var backoff: UInt32 = 100_000
        while !isStopped {
            if let reason = listen() {
                lock.locked { connected = false }
                if let handle { PQfinish(handle) }
                handle = nil
                onEvent(.lost(reason: reason))
                usleep(backoff)
                backoff = min(backoff * 2, 5_000_000)
                continue
            }
            backoff = 100_000
        }
        if let handle { PQfinish(handle) }
        handle = nil
        lock.locked { connected = false }
    }

    /// Connects if needed and waits up to a second for notifications. Nil when all is
    /// well, else why the connection is unusable.
    private func listen() -> String? {
        if handle == nil {
            let conn = PQconnectdb(conninfo)
            handle = conn
            guard let conn, PQstatus(conn) == CONNECTION_OK else { return message() }
            let result = PQexec(conn, "LISTEN \"\(channel)\"")
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else { return message() }
            lock.locked { connected = true }
            onEvent(.listening)
        }
        guard let conn = handle else { return "no connection" }
        var descriptor = pollfd(fd: PQsocket(conn), events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 1000)
        if ready < 0 && errno != EINTR { return "poll failed: errno \(errno)" }
        if ready > 0 {
            guard PQconsumeInput(conn) == 1 else { return message() }
        }
        while let notice = PQnotifies(conn) {
            let payload = String(cString: notice.pointee.extra)
            PQfreemem(notice)
            onEvent(.notification(payload))
        }
        return PQstatus(conn) == CONNECTION_OK ? nil : message()
    }

    private func message() -> String {
        guard let handle, let text = PQerrorMessage(handle) else { return "cannot connect" }
        return String(cString: text).trimmed
    }
}
