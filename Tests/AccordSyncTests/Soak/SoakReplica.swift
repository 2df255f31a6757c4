import AccordCRDT
import AccordStore
import AccordTesting
@testable import AccordSync

/// One client of the soak: its own FaultProxy in front of the server, its own store
/// file, and the `AccordClient` instance using them now (a restart replaces it with a
/// new instance over the same file, as an app relaunch would).
///
/// Used from the soak's one task only.
final class SoakReplica {
    let index: Int
    let proxy: FaultProxy
    let storePath: String
    let documents: [DocumentID]
    private let makeClient: (DocumentStore) -> AccordClient
    private let failures: SoakFailures
    private(set) var store: DocumentStore
    /// The instance in use; nil only while ``restart(graceful:)`` swaps it.
    private var current: AccordClient?
    /// Counts instances, so failures of a retired one are told apart.
    private var instance = 0

    init(
        index: Int, proxy: FaultProxy, storePath: String, documents: [DocumentID], failures: SoakFailures,
        makeClient: @escaping (DocumentStore) -> AccordClient
    ) throws {
        self.index = index
        self.proxy = proxy
        self.storePath = storePath
        self.documents = documents
        self.failures = failures
        self.makeClient = makeClient
        store = try DocumentStore(path: storePath)
        current = makeClient(store)
    }

    var client: AccordClient {
        guard let current else { preconditionFailure("\(name) is between two instances") }
        return current
    }

    var name: String { "c\(index)" }

    /// Starts the current instance and opens every soak document in it.
    func start() async throws {
        failures.watch(client, as: "\(name).\(instance)")
        await client.start()
        for id in documents { try await client.open(id) }
    }

    /// Replaces the client by a new instance over the same store file. `graceful`
    /// stops the old one first; otherwise it is released while connected, and the
    /// store is closed after it, as the file would be left by a process that exited.
    func restart(graceful: Bool) async throws {
        let retiring = "\(name).\(instance)"
        if graceful { await client.stop() }
        await failures.retire(retiring)
        current = nil  // the only reference: the old instance goes (unstopped, it closes its socket)
        try store.close()
        store = try DocumentStore(path: storePath)
        current = makeClient(store)
        instance += 1
        try await start()
    }

    /// Applies one edit in the client. `pushValue` is what `.pushArray` appends.
    func apply(_ edit: SoakEdit, to id: DocumentID, pushValue: String) async throws {
        try await client.withDocument(id) { doc in
            switch edit {
            case .insertText(let position, let text):
                let root = try doc.getText(DocumentSnapshot.textRoot)
                try root.insert(Int(position % UInt64(root.length + 1)), text)
            case .deleteText(let position, let count):
                let root = try doc.getText(DocumentSnapshot.textRoot)
                guard root.length > 0 else { return }
                let start = Int(position % UInt64(root.length))
                try root.delete(start, min(count, root.length - start))
            case .setMap(let key, let value):
                try doc.getMap(DocumentSnapshot.mapRoot).set(key, .int(value))
            case .deleteMapKey(let key):
                try doc.getMap(DocumentSnapshot.mapRoot).delete(key)
            case .pushArray:
                try doc.getArray(DocumentSnapshot.arrayRoot).append([.string(pushValue)])
            }
        }
    }

    func snapshot(_ id: DocumentID) async throws -> DocumentSnapshot {
        try await client.withDocument(id) { try DocumentSnapshot($0) }
    }

    func stop() async throws {
        await client.stop()
        try store.close()
    }
}

/// `failure` events of the soak's clients: each is a sync step a client could not
/// carry out, which a correct client under network faults never has. Events of an
/// instance after it was retired (its store closed under it) are not counted.
actor SoakFailures {
    private(set) var events: [String] = []
    private var retired: Set<String> = []

    nonisolated func watch(_ client: AccordClient, as name: String) {
        let stream = client.events
        Task { [weak self] in
            for await event in stream {
                guard case .failure = event else { continue }
                await self?.record(event, from: name)
            }
        }
    }

    func retire(_ name: String) { retired.insert(name) }

    private func record(_ event: ClientEvent, from name: String) {
        guard !retired.contains(name) else { return }
        events.append("\(name): \(event)")
    }
}
