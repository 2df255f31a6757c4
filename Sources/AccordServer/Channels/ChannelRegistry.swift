public import AccordCRDT

/// Who is attached to which channel, and the session counts that follow: every
/// channel of the server, in memory only (a channel has no document, and nothing of it
/// survives a restart). A pure value driven by ``SyncHub`` on its queue; a
/// ``Session`` has already checked the request (attached, allowed, within limits).
///
/// The count at a key is the number of distinct connections attached at that key or
/// at any key under it. Each key with anyone at or under it keeps, per connection, how
/// many of that connection's attachments lie in its subtree, so a count is a
/// dictionary's size and an attach or detach touches one entry per ancestor (keys are
/// at most 64 segments deep) instead of walking the tree.
public struct ChannelRegistry: Sendable {
    /// One message and every connection it goes to: fan-out is encoded once.
    public struct Delivery: Hashable, Sendable {
        public var message: ChannelMessage
        public var recipients: [ConnectionID]
    }

    /// Connections attached exactly at a key, with whether each is realtime.
    private var members: [ChannelKey: [ConnectionID: Bool]] = [:]
    /// Per key: each connection at or under it, with its number of attachments there.
    var subtree: [ChannelKey: [ConnectionID: Int]] = [:]
    /// In a cluster: the other nodes' counts, as they last announced them (see
    /// ChannelRegistry+Cluster.swift), by node, then key.
    var remoteCounts: [String: [ChannelKey: UInt64]] = [:]
    /// When each other node was last heard announcing counts (milliseconds).
    var remoteHeard: [String: UInt64] = [:]
    /// Keys whose count on this node changed since ``takeChangedKeys()``: what a
    /// cluster node announces to the others.
    var changedKeys: Set<ChannelKey> = []

    public init() {}

    /// Distinct connections at `key` or under it, on this node and (in a cluster) on the
    /// others as they announced.
    public func sessionCount(_ key: ChannelKey) -> UInt64 {
        remoteCounts.values.reduce(localCount(key)) { $0 + ($1[key] ?? 0) }
    }

    /// Distinct connections of this node at `key` or under it.
    func localCount(_ key: ChannelKey) -> UInt64 { UInt64(subtree[key]?.count ?? 0) }

    /// Channels with at least one connection attached exactly there.
    public var channelCount: Int { members.count }

    /// Carries out a request the session passed on (`attach`, `detach`, `sync`,
    /// `broadcast` with the sender set); other messages do nothing.
    public mutating func handle(_ message: ChannelMessage, from connection: ConnectionID) -> [Delivery] {
        switch message {
        case .attach(let key, let realtime):
            return attach(connection, at: key, realtime: realtime)
        case .detach(let key):
            return detach(connection, from: key)
        case .sync(let key):
            return [Delivery(message: .count(key: key, sessions: sessionCount(key)), recipients: [connection])]
        case .broadcast(let key, _, _, _):
            // Exactly once to every other realtime member at this key; never echoed.
            let recipients = realtimeMembers(at: key, except: connection)
            return recipients.isEmpty ? [] : [Delivery(message: message, recipients: recipients)]
        case .count, .error:
            return []
        }
    }

    /// The attacher is answered with the count at `key`; realtime members of every key
    /// whose count changed are told the new one. Attaching again only changes the mode.
    mutating func attach(_ connection: ConnectionID, at key: ChannelKey, realtime: Bool) -> [Delivery] {
        let isNew = members[key, default: [:]].updateValue(realtime, forKey: connection) == nil
        var changed: [ChannelKey] = []
        if isNew {
            for scope in key.selfAndAncestors {
                let before = subtree[scope, default: [:]][connection, default: 0]
                subtree[scope, default: [:]][connection] = before + 1
                if before == 0 { changed.append(scope) }
            }
        }
        changedKeys.formUnion(changed)
        let answer = Delivery(message: .count(key: key, sessions: sessionCount(key)), recipients: [connection])
        return [answer] + notify(changed, except: connection)
    }

    /// Realtime members of every key whose count changed are told the new one.
    mutating func detach(_ connection: ConnectionID, from key: ChannelKey) -> [Delivery] {
        guard members[key]?.removeValue(forKey: connection) != nil else { return [] }
        if members[key]?.isEmpty == true { members[key] = nil }
        var changed: [ChannelKey] = []
        for scope in key.selfAndAncestors {
            guard let before = subtree[scope]?[connection] else { continue }
            if before > 1 {
                subtree[scope]?[connection] = before - 1
            } else {
                subtree[scope]?[connection] = nil
                if subtree[scope]?.isEmpty == true { subtree[scope] = nil }
                changed.append(scope)
            }
        }
        changedKeys.formUnion(changed)
        return notify(changed, except: connection)
    }

    func notify(_ changed: [ChannelKey], except connection: ConnectionID?) -> [Delivery] {
        changed.compactMap { scope in
            let recipients = realtimeMembers(at: scope, except: connection)
            return recipients.isEmpty
                ? nil : Delivery(message: .count(key: scope, sessions: sessionCount(scope)), recipients: recipients)
        }
    }

    /// In connection order, so deliveries are deterministic.
    func realtimeMembers(at key: ChannelKey, except connection: ConnectionID?) -> [ConnectionID] {
        guard let atKey = members[key] else { return [] }
        return atKey.compactMap { id, realtime in realtime && id != connection ? id : nil }.sorted()
    }
}
