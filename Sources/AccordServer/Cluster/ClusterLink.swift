public import AccordStore

/// What a node of a cluster hears from the others through the shared database.
public enum ClusterEvent: Sendable {
    /// The feed (re)started: anything announced before may have been missed, so every
    /// open room reads what its document's log gained since it last looked.
    case resync
    /// Entries `first...last` were committed to the shared log of a document;
    /// `fromThisNode` when this node wrote them (its rooms hold them already). `updates`
    /// are their updates when they were small enough to come along.
    case appended(DocumentID, first: UInt64, last: UInt64, fromThisNode: Bool, updates: [[UInt8]]?)
    /// Another node changed who may access the document, or deleted it.
    case accessChanged(DocumentID)
    /// Awareness entries another node accepted from its clients (an awareness update).
    case awareness(DocumentID, [UInt8])
    /// A broadcast a member sent through another node.
    case broadcast(DocumentID, topic: String, payload: String, sender: String)
}

/// The connection between the nodes of a cluster (PostgreSQL LISTEN/NOTIFY in
/// `accord serve --cluster`). Events are hints; the shared log is the truth, so a
/// missed event costs latency, never an update.
public protocol ClusterLink: AnyObject, Sendable {
    /// Starts delivering events to `handler` (on any thread).
    func start(_ handler: @escaping @Sendable (ClusterEvent) -> Void)
    /// Stops delivering events.
    func stop()
    /// Tells the other nodes that this one changed who may access `id` (or deleted
    /// it), so they re-check their connections to it. Best effort: a lost announcement
    /// leaves the other nodes' connections as they were until they reconnect.
    func announceAccessChanged(_ id: DocumentID)
    /// Sends awareness entries this node accepted to the other nodes, without waiting
    /// (ephemeral: one that cannot be sent is dropped; clients renew their state).
    func publishAwareness(_ id: DocumentID, _ update: [UInt8])
    /// Sends a broadcast to the other nodes, without waiting (ephemeral, like awareness).
    func publishBroadcast(_ id: DocumentID, topic: String, payload: String, sender: String)
    /// Whether events flow right now (for `/readyz`).
    var isConnected: Bool { get }
}
