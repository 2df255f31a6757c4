/// An ephemeral message another connection sent to a document: relayed by the server
/// to the document's other connections, never stored, and lost for anyone offline.
public struct BroadcastMessage: Hashable, Sendable {
    /// The app's name for the kind of message; subscribers may listen to one topic.
    public var topic: String
    /// JSON text, exactly as the sender wrote it.
    public var payload: String
    /// The sender's user id, set by the server (clients cannot claim another's); nil
    /// if the server did not say.
    public var sender: String?

    public init(topic: String, payload: String, sender: String?) {
        self.topic = topic
        self.payload = payload
        self.sender = sender
    }
}
