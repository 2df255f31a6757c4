/// Which clients an awareness operation affected, in the order they were processed.
///
/// Yjs reports every operation twice: an `update` event listing every client whose
/// entry was accepted (a peer re-sending the same state still counts: it proves the peer
/// is alive and is what providers forward), and a `change` event where ``updated`` is
/// narrowed to the states whose content really differs (what a UI re-renders). Both are
/// available here: ``updated`` and ``changed``, ``isUpdate`` and ``isChange``.
public struct AwarenessChange: Hashable, Sendable {
    /// Clients seen for the first time with a state.
    public var added: [ClientID]
    /// Clients whose entry was accepted with a state (Yjs's `update` event), whether or
    /// not the state differs from the one held before.
    public var updated: [ClientID]
    /// The part of ``updated`` whose state content changed (Yjs's `change` event).
    public var changed: [ClientID]
    /// Clients announced or detected as gone.
    public var removed: [ClientID]
    /// A peer announced our own client as gone while we still have a state. Our state
    /// was kept and our clock moved past theirs; broadcast our entry
    /// (``Awareness/encodeUpdate(clients:)`` with the local client) so peers see us again.
    public var localStateReasserted: Bool

    public init(added: [ClientID] = [], updated: [ClientID] = [], changed: [ClientID] = [],
                removed: [ClientID] = [], localStateReasserted: Bool = false) {
        self.added = added
        self.updated = updated
        self.changed = changed
        self.removed = removed
        self.localStateReasserted = localStateReasserted
    }

    /// Yjs would emit `update`: something was accepted. The same as `!isEmpty`.
    public var isUpdate: Bool { !added.isEmpty || !updated.isEmpty || !removed.isEmpty }

    /// Yjs would emit `change`: some client appeared, left, or changed content.
    public var isChange: Bool { !added.isEmpty || !changed.isEmpty || !removed.isEmpty }

    public var isEmpty: Bool { !isUpdate }

    /// Every affected client (`added + updated + removed`): what y-websocket encodes and
    /// forwards to other peers after an update.
    public var clients: [ClientID] { added + updated + removed }
}
