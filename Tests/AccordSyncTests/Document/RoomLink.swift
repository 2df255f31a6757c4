import AccordCRDT
import AccordStore
import AccordServer
@testable import AccordSync

/// A real server `Room` and clients made of a `DocumentSyncMachine`, a real in-memory
/// `DocumentStore` and the `Doc` it stores, with frames passed between them in memory.
/// It plays both drivers: it performs the machine's actions on the client's store and
/// `Doc`, and the room's on its "store" (a sequence counter; the durable notification
/// is simulated by calling `persisted` then `durable`).
final class RoomLink {
    final class Client {
        let connection: ConnectionID
        let store: DocumentStore
        let stored: StoredDocument
        var machine: DocumentSyncMachine
        var events: [DocumentSyncEvent] = []
        var acknowledgedCalls: [UInt64] = []
        /// The highest local sequence handed to the machine.
        var delivered: UInt64 = 0

        init(connection: ConnectionID, store: DocumentStore, stored: StoredDocument, machine: DocumentSyncMachine) {
            self.connection = connection
            self.store = store
            self.stored = stored
            self.machine = machine
        }

        var text: String { (try? stored.doc.getText("t").string) ?? "<error>" }
    }

    let room: Room
    var now: UInt64 = 0
    private var serverSequence: UInt64 = 0
    private var clients: [ConnectionID: Client] = [:]
    /// Frames in flight: to the room (from a connection) or to a client.
    private var inFlight: [(toRoom: Bool, connection: ConnectionID, frame: ProtocolFrame)] = []

    let limits: Session.Limits

    init(maxDocumentBytes: Int = 1 << 20, limits: Session.Limits = Session.Limits()) {
        room = Room(id: SyncFixture.id, doc: Doc(clientID: 1), storedBytes: 0, maxDocumentBytes: maxDocumentBytes, now: 0)
        self.limits = limits
    }

    /// The hello a real server `Session` opens a `/v1/sync` connection with, decoded as
    /// the client driver would.
    func hello() throws -> ServerHello {
        var session = Session(endpoint: .multiplexed, limits: limits, now: now)
        guard case .send(let bytes)? = session.opened(user: .success("u")).first,
              let message = try MultiplexedFrame.decode(bytes).accordMessage,
              let hello = ServerHello(message)
        else { throw AccordError(.malformedMessage, "the session opened without a hello") }
        return hello
    }

    /// A client with its own store and the document open in it.
    func makeClient(connection: ConnectionID, clientID: ClientID, store: DocumentStore? = nil) throws -> Client {
        let store = store ?? DocumentStore(storage: SerialStorage.inMemory())
        let stored = try store.open(SyncFixture.id, createIfMissing: true, doc: Doc(clientID: clientID))
        let acknowledged = try store.metadata(SyncFixture.id).acknowledgedSequence
        let client = Client(
            connection: connection, store: store, stored: stored,
            machine: DocumentSyncMachine(id: SyncFixture.id, acknowledged: acknowledged))
        clients[connection] = client
        return client
    }

    /// Connects as the multiplexed endpoint would: the room learns of the connection on
    /// its first frame; the machine reads what the store holds unacknowledged.
    func connect(_ client: Client, canWrite: Bool) throws {
        try client.store.flush()
        let unacknowledged = try client.store.unacknowledgedUpdates(SyncFixture.id)
            .map { OutboundUpdate(sequence: $0.sequence, bytes: $0.value) }
        client.delivered = max(client.delivered, unacknowledged.last?.sequence ?? 0)
        for action in room.join(client.connection, user: "u\(client.connection)", canWrite: canWrite) {
            serve(action)
        }
        try perform(client.machine.connectionReady(try hello(), unacknowledged: unacknowledged, now: now), for: client)
        try run()
    }

    func disconnect(_ client: Client) {
        _ = room.leave(client.connection, now: now)
        _ = client.machine.connectionLost()
        inFlight.removeAll { $0.connection == client.connection }
    }

    /// An edit in the client's `Doc`, made durable and handed to the machine.
    func edit(_ client: Client, _ text: String) throws {
        try client.stored.doc.getText("t").insert(0, text)
        try client.store.flush()
        for entry in try client.store.unacknowledgedUpdates(SyncFixture.id) where entry.sequence > client.delivered {
            client.delivered = entry.sequence
            try perform(
                client.machine.localUpdateAppended(OutboundUpdate(sequence: entry.sequence, bytes: entry.value), now: now),
                for: client)
        }
        try run()
    }

    /// Delivers frames until none is in flight.
    func run() throws {
        while !inFlight.isEmpty {
            let (toRoom, connection, frame) = inFlight.removeFirst()
            if toRoom {
                for action in room.receive(frame, from: connection, now: now) { serve(action) }
            } else if let client = clients[connection] {
                try perform(client.machine.received(frame, now: now), for: client)
            }
        }
    }

    private func perform(_ actions: [DocumentSyncAction], for client: Client) throws {
        let doc = client.stored.doc
        for action in actions {
            switch action {
            case .send(let frame):
                inFlight.append((true, client.connection, frame))
            case .sendStepOne:
                inFlight.append((true, client.connection, .sync(.step1(stateVector: doc.encodeStateVector()))))
            case .answerStepOne(let stateVector):
                inFlight.append((true, client.connection, .sync(.step2(update: try doc.encodeStateAsUpdate(from: stateVector)))))
            case .apply(let update):
                try doc.applyUpdate(update, origin: DocumentStore.remoteOrigin)
            case .acknowledge(let through):
                client.acknowledgedCalls.append(through)
                try client.store.acknowledge(SyncFixture.id, through: through)
            case .emit(let event):
                client.events.append(event)
            case .deliverAwareness, .deliverBroadcast, .scheduleTick:
                break
            }
        }
    }

    private func serve(_ action: RoomAction) {
        switch action {
        case .send(let connection, let frame):
            inFlight.append((false, connection, frame))
        case .error(let connection, let error):
            let message = AccordMessage.error(code: error.code.rawValue, message: error.message, documentID: room.id.rawValue)
            if let frame = try? message.frame() { inFlight.append((false, connection, frame)) }
        case .persist(_, _, let ack):
            serverSequence += 1
            room.persisted(storeSequence: serverSequence, ack: ack, now: now)
            // The store's durable notification, at once.
            for released in room.durable(through: serverSequence, now: now).actions { serve(released) }
        case .ack(let connection, let through):
            if let frame = try? AccordMessage.ack(documentID: room.id.rawValue, through: through).frame() {
                inFlight.append((false, connection, frame))
            }
        case .publishAwareness, .publishBroadcast:
            break  // one server, no cluster
        }
    }
}
