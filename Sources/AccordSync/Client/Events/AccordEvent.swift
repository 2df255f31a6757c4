public import AccordCRDT
public import AccordStore

/// An event an ``AccordClient`` emits; ``AccordClient/stream(for:)`` and
/// ``AccordClient/nextEvent(_:timeout:where:)`` select events by their type.
public protocol AccordEvent: Sendable {}

extension NetworkModeEvent: AccordEvent {}

/// A document's sync state changed: it caught up with the server (`synced`, emitted on
/// each transition, so again when a stale document catches up), or its handshake went
/// unanswered for the budget (`error` with `NETWORK_TIMEOUT`, repeated on each timeout
/// while behind; the client retries on its own).
public struct DocumentSyncStateChangedEvent: AccordEvent, Hashable {
    public enum State: Hashable, Sendable {
        case synced
        case error(AccordError)
    }

    public var documentID: DocumentID
    public var state: State

    public init(documentID: DocumentID, state: State) {
        self.documentID = documentID
        self.state = state
    }
}

/// The server refused a document's local changes (`PERMISSION_DENIED`,
/// `DOCUMENT_TOO_LARGE`), or one is larger than the server accepts (`MESSAGE_TOO_LARGE`).
/// The document is parked: its changes stay in the store and are not sent again until
/// ``AccordClient/resync(_:discardLocalChanges:)``. Other documents keep syncing.
public struct WriteRejectedEvent: AccordEvent, Hashable {
    public var documentID: DocumentID
    public var error: AccordError

    public init(documentID: DocumentID, error: AccordError) {
        self.documentID = documentID
        self.error = error
    }
}

/// Local changes were dropped by ``AccordClient/resync(_:discardLocalChanges:)``.
public struct LocalChangesDroppedEvent: AccordEvent, Hashable {
    public var documentID: DocumentID
    /// The dropped updates (Yjs update v1 each), oldest first.
    public var updates: [[UInt8]]

    public init(documentID: DocumentID, updates: [[UInt8]]) {
        self.documentID = documentID
        self.updates = updates
    }
}

/// The server refused the token (`UNAUTHENTICATED`). The token provider is asked again
/// with ``TokenRequestReason/unauthenticated(_:)``; `attempt` counts the refusals in a
/// row (reset once a connection is accepted).
public struct AuthErrorEvent: AccordEvent, Hashable {
    public var error: AccordError
    public var attempt: Int

    public init(error: AccordError, attempt: Int) {
        self.error = error
        self.attempt = attempt
    }
}

/// An open document changed and the change is durable in the store (local edits after
/// the store's flush, remote updates after they were appended).
public struct DocumentChangedEvent: AccordEvent, Hashable {
    public enum Origin: Hashable, Sendable {
        case local
        case remote
        /// One durable batch held both.
        case localAndRemote
    }

    public var documentID: DocumentID
    public var origin: Origin
    /// The store sequences that became durable.
    public var sequences: ClosedRange<UInt64>

    public init(documentID: DocumentID, origin: Origin, sequences: ClosedRange<UInt64>) {
        self.documentID = documentID
        self.origin = origin
        self.sequences = sequences
    }
}

/// A coded error the server sent: about one document (other than a write refusal), or
/// about the connection as a whole (`documentID == nil`).
public struct ServerErrorEvent: AccordEvent, Hashable {
    public var documentID: DocumentID?
    public var error: AccordError

    public init(documentID: DocumentID?, error: AccordError) {
        self.documentID = documentID
        self.error = error
    }
}

/// The client could not carry out a sync step on its side (a frame that does not
/// decode, an update that does not apply, a store call that failed).
public struct SyncFailureEvent: AccordEvent, Hashable {
    public var documentID: DocumentID?
    public var error: AccordError

    public init(documentID: DocumentID?, error: AccordError) {
        self.documentID = documentID
        self.error = error
    }
}

/// A document's presence changed (see ``PresenceEvent``).
public struct DocumentPresenceEvent: AccordEvent, Hashable {
    public var documentID: DocumentID
    public var event: PresenceEvent

    public init(documentID: DocumentID, event: PresenceEvent) {
        self.documentID = documentID
        self.event = event
    }
}

/// Another connection broadcast to a document.
public struct BroadcastReceivedEvent: AccordEvent, Hashable {
    public var documentID: DocumentID
    public var message: BroadcastMessage

    public init(documentID: DocumentID, message: BroadcastMessage) {
        self.documentID = documentID
        self.message = message
    }
}
