import AccordCRDT
import AccordStore

/// Everything the store holds about one document, read after a flush. Tests compare it
/// around a refused message (it must be byte-identical) and an allowed write (it must
/// differ).
struct StoredState: Equatable, CustomStringConvertible {
    /// `encodeStateAsUpdate()` of the document loaded from the store.
    var update: [UInt8]
    var text: String
    var stateVector: StateVector
    var hasPendingUpdates: Bool
    /// The raw records: log entries, snapshot, metadata and the access row.
    var log: [StorageLogEntry]
    var snapshot: [UInt8]?
    var metadata: [UInt8]?
    var access: [UInt8]?

    var description: String {
        "text \"\(text)\", \(log.count) log entries, \(update.count)-byte state, state vector \(stateVector)"
    }
}

extension TestServer {
    /// Flushes the store, then loads `id` from it and reads its records directly.
    func storedState(_ id: DocumentID, text name: String = "t") throws -> StoredState {
        try documents.flush()
        let doc = try documents.load(id)
        let text = try doc.getText(name).string
        return try documents.storage.withAdapter { adapter in
            StoredState(
                update: doc.encodeStateAsUpdate(), text: text, stateVector: doc.stateVector,
                hasPendingUpdates: doc.hasPendingUpdates,
                log: try adapter.readLog(StorageCategory("doc.log"), key: id.rawValue),
                snapshot: try adapter.read(StorageCategory("doc.snapshot"), key: id.rawValue),
                metadata: try adapter.read(StorageCategory("doc.meta"), key: id.rawValue),
                access: try adapter.read(StorageCategory("server.access"), key: id.rawValue))
        }
    }

    /// Waits until the server has processed the close of every connection but `open`:
    /// every message those connections sent has then been handled (the network thread
    /// delivers a connection's messages before its close, and the hub handles events
    /// in order).
    func waitForConnections(_ open: Int) async throws {
        try await eventually("\(open) open connections") { server.metrics.snapshot.connections == open }
    }
}
