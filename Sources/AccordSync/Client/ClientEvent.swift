public import AccordCRDT
public import AccordStore

/// What an ``AccordClient`` tells the app, in the order it happened.
public enum ClientEvent: Hashable, Sendable {
    /// The network mode or `isOnline` changed (one event per transition).
    case network(NetworkModeEvent)
    /// A document's sync state: `synced`, `syncError` (handshake timeout), `writeRejected`
    /// (the document is parked), or another coded error the server sent about it.
    case document(DocumentID, DocumentSyncEvent)
    /// A coded error the server sent about the connection as a whole (no document),
    /// such as `UNAUTHENTICATED` before it closes the connection.
    case connectionError(AccordError)
    /// The client could not carry out a sync step on its side: a frame that does not
    /// decode, an update that does not apply, a store call that failed. Nil when no
    /// document is concerned.
    case failure(DocumentID?, AccordError)
    /// A document's presence changed (also delivered by ``AccordClient/presenceEvents(_:filter:)``).
    case presence(DocumentID, PresenceEvent)
    /// Another connection broadcast to a document (also delivered by ``AccordClient/broadcasts(_:topic:)``).
    case broadcast(DocumentID, BroadcastMessage)
}
