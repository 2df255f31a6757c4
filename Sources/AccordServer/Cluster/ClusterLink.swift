public import AccordCRDT
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
    /// Another node changed a group's members: this node reads the group again and
    /// re-checks the rooms of the documents granted to it.
    case groupChanged(GroupKey)
    /// Another node changed a collection: this node reads it again and re-checks the
    /// rooms of the documents it covered or covers.
    case collectionChanged(String)
    /// Awareness entries another node accepted from its clients (an awareness update).
    case awareness(DocumentID, [UInt8])
    /// A broadcast a member sent through another node.
    case broadcast(DocumentID, topic: String, payload: String, sender: String)
    /// Another node's session counts at some `/v1/sync` channel keys (zero: none left).
    case channelCounts(node: String, [ChannelCount])
    /// A channel broadcast a member sent through another node (its sender set).
    case channelBroadcast(ChannelMessage)
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
    /// Tells the other nodes that this one changed a group's members (best effort,
    /// like ``announceAccessChanged(_:)``).
    func announceGroupChanged(_ group: GroupKey)
    /// Tells the other nodes that this one changed a collection (best effort, like
    /// ``announceAccessChanged(_:)``).
    func announceCollectionChanged(_ id: String)
    /// Sends awareness entries this node accepted to the other nodes, without waiting
    /// (ephemeral: one that cannot be sent is dropped; clients renew their state).
    func publishAwareness(_ id: DocumentID, _ update: [UInt8])
    /// Sends a broadcast to the other nodes, without waiting (ephemeral, like awareness).
    func publishBroadcast(_ id: DocumentID, topic: String, payload: String, sender: String)
    /// Sends this node's session counts at channel keys whose count changed (or all of
    /// them, periodically), without waiting. Ephemeral: a lost one is replaced by the
    /// next periodic announcement.
    func publishChannelCounts(_ counts: [ChannelCount])
    /// Sends a channel broadcast to the other nodes, without waiting (ephemeral).
    func publishChannelBroadcast(_ message: ChannelMessage)
    /// Whether events flow right now (for `/readyz`).
    var isConnected: Bool { get }
}

/// One node's distinct connections at a channel key or under it.
public struct ChannelCount: Sendable, Hashable {
    public var key: ChannelKey
    public var sessions: UInt64

    public init(key: ChannelKey, sessions: UInt64) {
        self.key = key
        self.sessions = sessions
    }
}
