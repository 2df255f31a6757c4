import Foundation
import AccordCRDT
import AccordStore

/// The bulk-ingest sessions of a server, in memory: a session collects uploaded chunks
/// of ndjson lines (``IngestLine``) per model, then is committed once and applied as
/// one transaction. States: `uploading` → `validating` → `applying` → `complete`, or
/// `failed` (with the error) from any of them; `DELETE` aborts an uploading session.
///
/// Nothing of a session is stored: a server restart forgets sessions still uploading
/// (their data never reached the document), and the application itself is one append
/// and one flush, so a restart leaves the document with all of an ingest or none.
final class IngestSessions: @unchecked Sendable {
    enum State: String, Sendable {
        case uploading, validating, applying, complete, failed
    }

    struct Chunk {
        var model: String
        var bytes: [UInt8]
    }

    struct Session {
        var id: String
        var document: DocumentID
        var state: State = .uploading
        var chunks: [Chunk] = []
        var bytes = 0
        var records = 0
        var error: AccordError?
    }

    /// Bytes one session may hold before it is committed (uploads are kept in memory).
    let maxSessionBytes: Int
    /// Bytes all sessions together may hold: uploads are in memory, so a writer opening
    /// many sessions must not be able to exhaust it.
    let maxTotalBytes: Int
    /// Sessions kept; the oldest finished ones go first, and when none has finished a
    /// new one is refused (`QUOTA_EXCEEDED`).
    let maxSessions: Int

    // Invariant behind @unchecked Sendable: `sessions` and `order` only under `lock`.
    private let lock = NSLock()
    private var sessions: [String: Session] = [:]
    private var order: [String] = []

    init(maxSessionBytes: Int = 512 << 20, maxTotalBytes: Int = 1 << 30, maxSessions: Int = 256) {
        self.maxSessionBytes = maxSessionBytes
        self.maxTotalBytes = maxTotalBytes
        self.maxSessions = maxSessions
    }

    /// - Throws: `QUOTA_EXCEEDED` when ``maxSessions`` sessions are all unfinished.
    func create(for document: DocumentID) throws(AccordError) -> Session {
        let session = Session(id: GeneratedDocumentID.make().rawValue, document: document)
        lock.lock()
        defer { lock.unlock() }
        if order.count >= maxSessions {
            guard let oldest = order.first(where: { sessions[$0]?.isFinished ?? true }) else {
                throw AccordError(.quotaExceeded, "the server holds \(maxSessions) unfinished ingest sessions; commit or abort one",
                                  details: ["limit": String(maxSessions)])
            }
            sessions[oldest] = nil
            order.removeAll { $0 == oldest }
        }
        sessions[session.id] = session
        order.append(session.id)
        return session
    }

    /// Bytes held by every session still uploading or being applied.
    func heldBytes() -> Int {
        lock.withLock { sessions.values.reduce(0) { $0 + ($1.isFinished ? 0 : $1.bytes) } }
    }

    /// The session `id` of `document`; `INGEST_SESSION_NOT_FOUND` otherwise.
    func session(_ id: String, of document: DocumentID) throws(AccordError) -> Session {
        let session = lock.withLock { sessions[id] }
        guard let session, session.document == document else { throw Self.notFound(id, document) }
        return session
    }

    /// Runs `change` on the session under the lock.
    @discardableResult
    func update(
        _ id: String, of document: DocumentID, _ change: (inout Session) throws(AccordError) -> Void
    ) throws(AccordError) -> Session {
        lock.lock()
        defer { lock.unlock() }
        guard var session = sessions[id], session.document == document else { throw Self.notFound(id, document) }
        try change(&session)
        sessions[id] = session
        return session
    }

    static func notFound(_ id: String, _ document: DocumentID) -> AccordError {
        AccordError(.ingestSessionNotFound, "document \(document) has no ingest session \(id)",
                    details: ["document": document.rawValue, "session": id])
    }
}

extension IngestSessions.Session {
    var isFinished: Bool { state == .complete || state == .failed }

    /// `{"id", "document", "state", "bytes", "records", "error"?}`.
    var json: AnyValue {
        var entries: [(String, AnyValue)] = [
            ("id", .string(id)), ("document", .string(document.rawValue)), ("state", .string(state.rawValue)),
            ("bytes", .int(Int64(bytes))), ("records", .int(Int64(records))),
        ]
        if let error {
            entries.append(("error", .object(OrderedObject([
                ("code", .string(error.code.rawValue)), ("message", .string(error.message)),
                ("details", .object(OrderedObject(error.details.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))),
            ]))))
        }
        return .object(OrderedObject(entries))
    }
}
