import AccordCRDT

/// The server's copy of one room's awareness entries, and which connection owns each
/// client id: the rule that lets real y-protocols clients share a room.
///
/// - A connection owns a client id while the id's state is one that connection set:
///   it becomes the owner only when an entry it sends is accepted with a non-null
///   state (added or renewed), and stops being the owner when the state goes away
///   (its own removal, expiry, or the connection leaving, which removes it for
///   everyone). Removal entries never make anyone an owner. An id without a state is
///   free for whoever next sets one, in particular its client reconnecting.
/// - An entry for an id another connection owns, whose clock is not newer than the
///   server's, is an echo: y-websocket sends back every update it receives (other
///   clients' entries, removals, its own timeouts) and pycrdt-websocket relays what
///   it applies. It is dropped without a word: nothing applied, nothing relayed.
/// - The same entry with a newer clock is a takeover and is refused (reported in
///   ``Receipt/refused``); the owner's entry stays as it was.
/// - A non-null entry for an id whose entry was removed, with a clock that does not
///   pass the removal's, is a stale re-announcement: a y-websocket client that
///   reconnects re-sends its state under the clock it had, which the server (and
///   every peer that saw the removal) ignores. The sender is answered with the
///   removal (``Receipt/answer``); y-protocols' `applyAwarenessUpdate` and
///   `DocumentPresence` both answer a removal of their own live state with that state
///   under a newer clock, so the reconnected client reappears for everyone at once
///   instead of after its 15 s renewal.
/// - A returning client id (one whose entry was removed, now set again or re-announced)
///   means a reconnected client, which still holds the others' clocks from before
///   (y-protocols' `removeAwarenessStates` keeps them) and so ignores their current
///   states until they change. Every other owner is sent the removal of its own ids
///   (``Receipt/nudges``); each answers with its state under a newer clock, which is
///   relayed to everyone, the returning client included. This costs a round of
///   re-announcements per reconnect, never per ordinary update.
struct RoomAwareness {
    private(set) var awareness: Awareness
    /// The owner of every present client id (the server's own id excepted).
    private var owners: [ClientID: ConnectionID] = [:]

    /// What one received update leads to.
    struct Receipt: Equatable {
        /// The accepted entries, encoded, for the room's other members; nil if none.
        var relay: [UInt8]?
        /// Removal entries for the sender's stale re-announcements; nil if none.
        var answer: [UInt8]?
        /// Ids the sender may not touch: owned by another connection (with a newer
        /// clock than the server's) or the server's own.
        var refused: [ClientID] = []
        /// For each other owner, the removal of its own entries, which asks it to
        /// re-announce them (sent when a client id returns).
        var nudges: [ConnectionID: [UInt8]] = [:]
    }

    init(now: UInt64) {
        // Client ids are 32-bit in practice; the server's own id sits above that range,
        // and entries claiming it are refused, so no peer's entry is taken for the server's.
        var awareness = Awareness(localClientID: ClientID(UInt32.max) + 1, now: now)
        // Like Yjs, a new Awareness starts with an empty local state; a server has none.
        awareness.setLocalState(nil, now: now)
        self.awareness = awareness
    }

    func owner(of client: ClientID) -> ConnectionID? { owners[client] }

    /// Applies what `connection` may change of `update`, by the rules above.
    mutating func receive(_ update: AwarenessUpdate, from connection: ConnectionID, now: UInt64) -> Receipt {
        var receipt = Receipt()
        var accepted: [AwarenessUpdate.Entry] = []
        var stale: [ClientID] = []
        var returning = false
        for entry in update.entries {
            let id = entry.clientID
            let held = awareness.meta[id]?.clock
            if id == awareness.localClientID {
                receipt.refused.append(id)
            } else if let owner = owners[id], owner != connection {
                if entry.clock > (held ?? 0) { receipt.refused.append(id) }  // else an echo: dropped
            } else if entry.state != nil, awareness.states[id] == nil, let held {
                returning = true
                if entry.clock <= held { stale.append(id) } else { accepted.append(entry) }
            } else {
                accepted.append(entry)
            }
        }
        let change = awareness.apply(AwarenessUpdate(accepted), now: now)
        for id in change.added + change.updated { owners[id] = connection }
        for id in change.removed { owners[id] = nil }
        if change.isUpdate { receipt.relay = awareness.encodeUpdate(clients: change.clients) }
        if !stale.isEmpty { receipt.answer = awareness.encodeUpdate(clients: stale) }
        if returning {
            for (owner, ids) in Dictionary(grouping: owners.keys, by: { owners[$0]! }) where owner != connection {
                receipt.nudges[owner] = AwarenessUpdate(ids.sorted().map {
                    .init(clientID: $0, clock: awareness.meta[$0]?.clock ?? 0, state: nil)
                }).encode()
            }
        }
        return receipt
    }

    /// Applies entries another node of a cluster accepted (its own rules held there):
    /// those of ids no connection here owns; what changed, encoded, or nil.
    mutating func receiveRemote(_ update: AwarenessUpdate, now: UInt64) -> [UInt8]? {
        let foreign = update.entries.filter { $0.clientID != awareness.localClientID && owners[$0.clientID] == nil }
        let change = awareness.apply(AwarenessUpdate(foreign), now: now)
        return change.isUpdate ? awareness.encodeUpdate(clients: change.clients) : nil
    }

    /// Removes the entries `connection` owns (it left the room); the removal to send
    /// to everyone else, nil if it owned none.
    mutating func removeEntries(of connection: ConnectionID, now: UInt64) -> [UInt8]? {
        let owned = owners.filter { $0.value == connection }.keys.sorted()
        owned.forEach { owners[$0] = nil }
        let change = awareness.removeStates(clients: owned, now: now)
        return change.removed.isEmpty ? nil : awareness.encodeUpdate(clients: change.removed)
    }

    /// Removes entries not renewed for ``Awareness/outdatedTimeout``; the removal to
    /// send to every member, nil if none expired.
    mutating func expire(now: UInt64) -> [UInt8]? {
        let change = awareness.checkTimeouts(now: now).change
        change.removed.forEach { owners[$0] = nil }
        return change.removed.isEmpty ? nil : awareness.encodeUpdate(clients: change.removed)
    }
}
