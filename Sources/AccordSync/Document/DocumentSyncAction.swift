public import AccordCRDT

/// What a ``DocumentSyncMachine`` asks its driver to do, in order. The machine holds
/// no document and no socket; the two actions that need the document's content
/// (``sendStepOne`` and ``answerStepOne(stateVector:)``) are fulfilled by the driver.
public enum DocumentSyncAction: Hashable, Sendable {
    /// Send this frame under the machine's document on the multiplexed connection.
    case send(ProtocolFrame)
    /// Send sync step 1 with the document's current state vector. A request rather than
    /// a ready frame because the state vector is only right at the moment it is sent.
    case sendStepOne
    /// Send sync step 2 with what the document has beyond `stateVector` (the server's).
    case answerStepOne(stateVector: [UInt8])
    /// A remote update: append it to the store as not local, then apply it to the `Doc`
    /// with `DocumentStore.remoteOrigin` (an open `StoredDocument` does both when the
    /// update is applied to its `Doc` with that origin).
    case apply(update: [UInt8])
    /// Call `DocumentStore.acknowledge(_:through:)`: the server stored these durably.
    case acknowledge(through: UInt64)
    /// An awareness update for the presence layer.
    case deliverAwareness([UInt8])
    /// A broadcast from another connection (`sender` is set by the server).
    case deliverBroadcast(topic: String, payload: String, sender: String?)
    /// Tell the app.
    case emit(DocumentSyncEvent)
    /// Call ``DocumentSyncMachine/tick(now:)`` at this time (ms); replaces any earlier request.
    case scheduleTick(at: UInt64)
}

/// What a document's sync tells the app.
public enum DocumentSyncEvent: Hashable, Sendable {
    /// The server's step 2 (when asked for) arrived and every update sent is acknowledged.
    /// Emitted on each transition into that state, so a stale document catching up says so
    /// again; never while the document is parked.
    case synced
    /// The handshake went unanswered for the budget (`NETWORK_TIMEOUT`); repeated on each
    /// timeout while behind, and the machine has already retried.
    case syncError(AccordError)
    /// The server refused this document's writes (`PERMISSION_DENIED`, `DOCUMENT_TOO_LARGE`),
    /// or an update exceeds the server's frame limit (`MESSAGE_TOO_LARGE`, found before
    /// sending). The document is parked: its local updates are no longer sent.
    case writeRejected(AccordError)
    /// Any other coded error the server sent about this document.
    case serverError(AccordError)
}
