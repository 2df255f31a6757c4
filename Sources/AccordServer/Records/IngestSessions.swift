import Foundation
import AccordCRDT
import AccordStore

/// The bulk-ingest sessions of a server: a session collects uploaded chunks of ndjson
/// lines (``IngestLine``) per model, then is committed once and applied as one
/// transaction. States: `uploading` → `validating` → `applying` → `complete`, or
/// `failed` (with the error) from any of them; `DELETE` aborts an uploading session.
///
/// The uploaded bytes are spooled to one file per session in ``spoolDirectory``, not
/// kept in memory: a session only records where each chunk lies in its file, and the
/// ingest reads one chunk at a time (a chunk is one request body, so at most the
/// server's request limit). The file is removed when the session finishes.
///
/// The sessions themselves are in memory: a server restart forgets sessions still
/// uploading (their data never reached the document; their files are removed when the
/// next server starts), and the application itself is one append and one flush, so a
/// restart leaves the document with all of an ingest or none.
final class IngestSessions: @unchecked Sendable {
    enum State: String, Sendable {
        case uploading, validating, applying, complete, failed
    }

    /// Where one uploaded chunk lies in its session's spool file.
    struct Chunk: Sendable {
        var model: String
        var offset: Int64
        var count: Int
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

    /// Bytes one session may hold before it is committed (spooled to disk).
    let maxSessionBytes: Int
    /// Bytes all sessions together may hold on disk, so a writer opening many sessions
    /// cannot fill it.
    let maxTotalBytes: Int
    /// Sessions kept; the oldest finished ones go first, and when none has finished a
    /// new one is refused (`QUOTA_EXCEEDED`).
    let maxSessions: Int
    /// The directory of the spool files (`<session>.ndjson`), created when first needed.
    let spoolDirectory: String

    // Invariant behind @unchecked Sendable: `sessions` and `order` only under `lock`;
    // a session's spool file is written only under `lock` too.
    private let lock = NSLock()
    private var sessions: [String: Session] = [:]
    private var order: [String] = []

    /// - Parameter spoolDirectory: nil spools to a directory of its own under the
    ///   system's temporary directory. Files left there by an earlier server (whose
    ///   sessions are forgotten) are removed.
    init(
        maxSessionBytes: Int = 512 << 20, maxTotalBytes: Int = 1 << 30, maxSessions: Int = 256, spoolDirectory: String? = nil
    ) {
        self.maxSessionBytes = maxSessionBytes
        self.maxTotalBytes = maxTotalBytes
        self.maxSessions = maxSessions
        self.spoolDirectory = spoolDirectory
            ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("accord-ingest-\(GeneratedDocumentID.make().rawValue)")
        // Also the index files of ingests (ServerRecordIndexes.IndexFile), derived data.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: self.spoolDirectory)) ?? []
        where name.hasSuffix(".ndjson") || name.hasPrefix("accord-index-") {
            unlink((self.spoolDirectory as NSString).appendingPathComponent(name))
        }
    }

    deinit {
        for id in order { unlink(spoolPath(id)) }
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
            unlink(spoolPath(oldest))
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

    /// Runs `change` on the session under the lock. A session that `change` finishes
    /// (`complete` or `failed`) loses its chunks and its spool file.
    @discardableResult
    func update(
        _ id: String, of document: DocumentID, _ change: (inout Session) throws(AccordError) -> Void
    ) throws(AccordError) -> Session {
        lock.lock()
        defer { lock.unlock() }
        guard var session = sessions[id], session.document == document else { throw Self.notFound(id, document) }
        try change(&session)
        if session.isFinished {
            session.chunks = []
            unlink(spoolPath(id))
        }
        sessions[id] = session
        return session
    }

    /// Appends `bytes`, lines of `model`, to the spool file of session `id` (under the
    /// lock, after `check` accepted the session as it is). Nothing is recorded when the
    /// write fails (`STORAGE_ERROR`); the bytes written so far stay where they were.
    @discardableResult
    func append(
        _ bytes: [UInt8], model: String, to id: String, of document: DocumentID,
        check: (Session) throws(AccordError) -> Void
    ) throws(AccordError) -> Session {
        try update(id, of: document) { session throws(AccordError) in
            try check(session)
            let offset = Int64(session.bytes)
            try write(bytes, at: offset, to: spoolPath(id))
            session.chunks.append(Chunk(model: model, offset: offset, count: bytes.count))
            session.bytes += bytes.count
        }
    }

    /// The bytes of one chunk of session `id`, read back from its spool file.
    func read(_ chunk: Chunk, of id: String) throws(AccordError) -> [UInt8] {
        let path = spoolPath(id)
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw Self.spoolFailure("read", path) }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: chunk.count)
        var done = 0
        while done < chunk.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                pread(file, buffer.baseAddress! + done, chunk.count - done, off_t(chunk.offset) + off_t(done))
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { throw Self.spoolFailure("read", path) }
            done += read
        }
        return bytes
    }

    private func spoolPath(_ id: String) -> String {
        (spoolDirectory as NSString).appendingPathComponent(id + ".ndjson")
    }

    private func write(_ bytes: [UInt8], at offset: Int64, to path: String) throws(AccordError) {
        // With its parents: the blob directory it sits in is only made by the first blob.
        do {
            try FileManager.default.createDirectory(
                atPath: spoolDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AccordError(.storageError, "cannot create the ingest spool \(spoolDirectory): \(error)",
                              details: ["path": spoolDirectory])
        }
        let file = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Self.spoolFailure("write", path) }
        defer { close(file) }
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                pwrite(file, buffer.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                let failure = Self.spoolFailure("write", path)
                _ = ftruncate(file, off_t(offset))  // the recorded chunks end at `offset`
                throw failure
            }
            done += written
        }
    }

    private static func spoolFailure(_ verb: String, _ path: String) -> AccordError {
        AccordError(.storageError, "cannot \(verb) the ingest spool \(path): \(String(cString: strerror(errno)))",
                    details: ["path": path])
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
