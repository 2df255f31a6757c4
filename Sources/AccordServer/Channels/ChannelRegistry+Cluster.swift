public import AccordCRDT

/// Channels across the nodes of a cluster. A node announces its own count at every
/// key whose count changed (``takeChangedKeys()``), and all of them again every few
/// seconds; the other nodes keep what each announced and add it to their own, so a
/// count is the cluster's. A node not heard from for ``remoteExpiryMilliseconds`` (it
/// died, or lost its feed) no longer counts. Broadcasts from another node go to every
/// realtime member here (the sender is on the other node, so nobody is skipped).
extension ChannelRegistry {
    /// How long another node's counts stand without being announced again.
    public static let remoteExpiryMilliseconds: UInt64 = 30_000

    /// The keys whose count here changed since the last call, with their counts now.
    public mutating func takeChangedKeys() -> [ChannelCount] {
        defer { changedKeys = [] }
        return changedKeys.sorted().map { ChannelCount(key: $0, sessions: localCount($0)) }
    }

    /// Every key counted here, with its count (for the periodic announcement).
    public var localCounts: [ChannelCount] {
        subtree.keys.sorted().map { ChannelCount(key: $0, sessions: localCount($0)) }
    }

    /// Another node announced its counts at some keys (zero: none there any more).
    /// Realtime members here of each key whose cluster count changed hear the new one.
    public mutating func remote(_ node: String, counts: [ChannelCount], now: UInt64) -> [Delivery] {
        remoteHeard[node] = now
        var changed: [ChannelKey] = []
        for count in counts {
            let (key, sessions) = (count.key, count.sessions)
            let before = remoteCounts[node]?[key] ?? 0
            guard before != sessions else { continue }
            remoteCounts[node, default: [:]][key] = sessions == 0 ? nil : sessions
            if remoteCounts[node]?.isEmpty == true { remoteCounts[node] = nil }
            changed.append(key)
        }
        return notify(changed, except: nil)
    }

    /// A broadcast a member sent through another node: to every realtime member here.
    public func remoteBroadcast(_ message: ChannelMessage) -> [Delivery] {
        guard case .broadcast(let key, _, _, _) = message else { return [] }
        let recipients = realtimeMembers(at: key, except: nil)
        return recipients.isEmpty ? [] : [Delivery(message: message, recipients: recipients)]
    }

    /// Forgets the counts of nodes not heard from for ``remoteExpiryMilliseconds``.
    public mutating func expireRemote(now: UInt64) -> [Delivery] {
        let silent = remoteHeard.filter { now &- $0.value > Self.remoteExpiryMilliseconds }.keys
        var changed: Set<ChannelKey> = []
        for node in silent {
            remoteHeard[node] = nil
            if let counts = remoteCounts.removeValue(forKey: node) { changed.formUnion(counts.keys) }
        }
        return notify(changed.sorted(), except: nil)
    }
}
