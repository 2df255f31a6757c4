import Dispatch
import AccordCRDT
import AccordStore

/// Reads of the hub's live state for the dashboard. Each runs on the hub's queue
/// (`queue.sync`, so never call them on it) and copies plain values out; nothing
/// changes a room or a session.
extension SyncHub {
    /// Live connections and acks not yet sent, per loaded document.
    struct RoomLoad: Sendable, Hashable {
        var connections: Int
        var pendingAcks: Int
    }

    /// One connection in a room, with the awareness states it owns.
    struct RoomClient: Sendable {
        var connection: ConnectionID
        var user: String?
        var awareness: [(clientID: ClientID, state: AnyValue)]
    }

    /// One state of a loaded room's document: which load of the room, and its
    /// ``Room/revision``. Equal values, equal content.
    struct RoomRevision: Sendable, Hashable {
        var generation: UInt64
        var revision: UInt64
    }

    /// What the dashboard's document page shows of a loaded room.
    struct RoomView: Sendable {
        var clients: [RoomClient]
        /// Awareness entries no connected client owns (kept until they expire).
        var unownedAwareness: [(clientID: ClientID, state: AnyValue)]
        var pendingAcks: Int
        var revision: RoomRevision
        /// The room's state as one update (the document as its clients see it); nil
        /// when the caller did not want it for this revision.
        var state: [UInt8]?
    }

    /// One signed-in connection and the documents it has joined.
    struct ConnectionSummary: Sendable {
        var connection: ConnectionID
        var user: String
        var documents: [DocumentID]
    }

    func roomLoads() -> [DocumentID: RoomLoad] {
        queue.sync {
            var loads: [DocumentID: RoomLoad] = [:]
            for (id, loaded) in rooms {
                loads[id] = RoomLoad(connections: loaded.room.connections.count, pendingAcks: loaded.room.acks.pendingCount)
            }
            return loads
        }
    }

    /// The room of `id` as it is now; nil when it is not loaded (nobody is connected
    /// and no route touched it lately). The state is encoded (on the hub's queue, so
    /// skip it when you can) only if `wantsState` says yes for the room's revision. A
    /// room lent to REST work is read once it comes back (its `Doc` is the REST body's
    /// meanwhile), so call it off the network thread.
    func roomView(_ id: DocumentID, wantsState: (RoomRevision) -> Bool = { _ in true }) -> RoomView? {
        enum Step {
            case view(RoomView?)
            case wait(DispatchSemaphore)
        }
        while true {
            let step: Step = queue.sync {
                if isLeased(id) {
                    let semaphore = DispatchSemaphore(value: 0)
                    leases[id]?.waiting.append(semaphore)
                    return .wait(semaphore)
                }
                return .view(currentView(id, wantsState: wantsState))
            }
            switch step {
            case .view(let view): return view
            case .wait(let semaphore): semaphore.wait()
            }
        }
    }

    private func currentView(_ id: DocumentID, wantsState: (RoomRevision) -> Bool) -> RoomView? {
        guard let loaded = rooms[id] else { return nil }
        let room = loaded.room
        let revision = RoomRevision(generation: loaded.generation, revision: room.revision)
        var owned: [ConnectionID: [(ClientID, AnyValue)]] = [:]
        var unowned: [(clientID: ClientID, state: AnyValue)] = []
        for (client, state) in room.awareness.states.sorted(by: { $0.key < $1.key }) where client != room.awareness.localClientID {
            if let owner = room.awarenessOwner(of: client) {
                owned[owner, default: []].append((client, state))
            } else {
                unowned.append((client, state))
            }
        }
        let clients = room.connections.map { connection in
            RoomClient(
                connection: connection, user: connections[connection]?.session.user,
                awareness: (owned[connection] ?? []).map { (clientID: $0.0, state: $0.1) })
        }
        // The whole-document cache the room keeps for joining clients serves this too.
        let state = wantsState(revision) ? ((try? room.wholeState()) ?? room.doc.encodeStateAsUpdate()) : nil
        return RoomView(
            clients: clients, unownedAwareness: unowned, pendingAcks: room.acks.pendingCount,
            revision: revision, state: state)
    }

    /// Every signed-in connection, oldest first.
    func connectionSummaries() -> [ConnectionSummary] {
        queue.sync {
            connections.keys.sorted().compactMap { id in
                guard let connection = connections[id], let user = connection.session.user else { return nil }
                return ConnectionSummary(
                    connection: id, user: user,
                    documents: connection.session.documents.sorted { $0.rawValue < $1.rawValue })
            }
        }
    }
}
