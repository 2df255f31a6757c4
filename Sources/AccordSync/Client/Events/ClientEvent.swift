public import AccordCRDT
public import AccordStore

/// Everything an ``AccordClient`` tells the app, in the order it happened. Each case
/// carries (or maps to) one typed event, so an app can subscribe to all of them
/// (`stream(for: ClientEvent.self)`) or to one kind (`stream(for: WriteRejectedEvent.self)`).
public enum ClientEvent: AccordEvent, Hashable {
    /// The network mode or `isOnline` changed (one event per transition).
    case network(NetworkModeEvent)
    /// A document's sync state: `synced`, `syncError` (handshake timeout), `writeRejected`
    /// (the document is parked), or another coded error the server sent about it.
    case document(DocumentID, DocumentSyncEvent)
    /// A coded error the server sent about the connection as a whole (no document),
    /// such as `UNAUTHENTICATED` before it closes the connection.
    case connectionError(AccordError)
    /// The server refused the token; the provider is asked again with the reason.
    case authError(AuthErrorEvent)
    /// `resync(_:discardLocalChanges: true)` dropped refused local changes.
    case localChangesDropped(LocalChangesDroppedEvent)
    /// An open document's content changed and the change is durable in the store.
    case documentChanged(DocumentChangedEvent)
    /// A document's presence changed (also delivered by ``AccordClient/presenceEvents(_:filter:)``).
    case presence(DocumentID, PresenceEvent)
    /// Another connection broadcast to a document (also delivered by ``AccordClient/broadcasts(_:topic:)``).
    case broadcast(DocumentID, BroadcastMessage)
    /// The user's permission on a document changed (pushed by the server).
    case permission(PermissionEvent)
    /// A document's directory entry changed, was deleted, or was evicted locally.
    case metadataChanged(DocumentMetadataChangedEvent)
    /// The client could not carry out a sync step on its side: a frame that does not
    /// decode, an update that does not apply, a store call that failed. Nil when no
    /// document is concerned.
    case failure(DocumentID?, AccordError)
    /// A blob upload progressed, finished or failed; a blob was downloaded, or is
    /// unavailable (`docs/blobs.md`).
    case blob(BlobEvent)

    /// The typed event this case stands for.
    public var typed: any AccordEvent {
        switch self {
        case .network(let event): event
        case .document(let id, .synced): DocumentSyncStateChangedEvent(documentID: id, state: .synced)
        case .document(let id, .syncError(let error)): DocumentSyncStateChangedEvent(documentID: id, state: .error(error))
        case .document(let id, .writeRejected(let error)): WriteRejectedEvent(documentID: id, error: error)
        case .document(let id, .serverError(let error)): ServerErrorEvent(documentID: id, error: error)
        case .connectionError(let error): ServerErrorEvent(documentID: nil, error: error)
        case .authError(let event): event
        case .localChangesDropped(let event): event
        case .documentChanged(let event): event
        case .presence(let id, let event): DocumentPresenceEvent(documentID: id, event: event)
        case .broadcast(let id, let message): BroadcastReceivedEvent(documentID: id, message: message)
        case .permission(let event): event
        case .metadataChanged(let event): event
        case .failure(let id, let error): SyncFailureEvent(documentID: id, error: error)
        case .blob(let event): event.typed
        }
    }
}
