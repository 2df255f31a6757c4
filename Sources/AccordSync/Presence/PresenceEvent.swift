public import AccordCRDT

/// What changed in a document's presence: who is here, and what they show.
///
/// Every event says whether it is about our own presence (``isMine``), so an app can
/// follow only the others (a list of collaborators) or only itself (an echo of what it
/// set), with ``PresenceFilter``.
public struct PresenceEvent: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// The others present, as the server knew them when the connection became ready
        /// for the document (the first awareness update after each (re)connect). Later
        /// changes come as the events below.
        case initialized(others: [ClientID: AnyValue])
        /// A client appeared with this state (for ours: the first ``DocumentPresence/set(_:now:)``).
        case watched(ClientID, AnyValue)
        /// A client left: it said so, it timed out, its connection closed, or ours was lost.
        case unwatched(ClientID)
        /// A present client's state changed to this.
        case presenceChanged(ClientID, AnyValue)
    }

    public let kind: Kind
    /// Whether the event is about our own client; `initialized` never is.
    public let isMine: Bool

    public init(_ kind: Kind, isMine: Bool) {
        self.kind = kind
        self.isMine = isMine
    }
}

/// Which presence events a subscriber wants.
public enum PresenceFilter: Hashable, Sendable {
    case all
    /// Only events about our own presence.
    case mine
    /// Only events about other clients, `initialized` included.
    case others

    public func admits(_ event: PresenceEvent) -> Bool {
        switch self {
        case .all: true
        case .mine: event.isMine
        case .others: !event.isMine
        }
    }
}

/// What a ``DocumentPresence`` asks its driver to do, in order.
public enum PresenceAction: Hashable, Sendable {
    /// Send this frame under the document on the connection (awareness or query awareness).
    case send(ProtocolFrame)
    /// Tell the app.
    case emit(PresenceEvent)
}
