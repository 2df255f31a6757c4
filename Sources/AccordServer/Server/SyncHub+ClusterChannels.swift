import AccordCRDT

/// `/v1/sync` channels across the nodes of a cluster (see ChannelRegistry+Cluster.swift):
/// count changes and broadcasts go to the other nodes as they happen, and every
/// ``channelAnnounceSeconds`` each node announces all its counts again, which both
/// repairs a lost announcement and tells the others it is alive.
extension SyncHub {
    static let channelAnnounceSeconds: UInt64 = 10

    /// After a channel request was handled here: the counts it changed, and the
    /// broadcast it carried, to the other nodes. On the sync queue.
    func shareChannelChanges(after message: ChannelMessage, with cluster: any ClusterLink) {
        let changed = channelRegistry.takeChangedKeys()
        if !changed.isEmpty { cluster.publishChannelCounts(changed) }
        if case .broadcast = message { cluster.publishChannelBroadcast(message) }
    }

    /// Once a second on a cluster node: forget silent nodes' counts; every
    /// ``channelAnnounceSeconds``, announce this node's counts again.
    func channelHousekeeping(now: UInt64) {
        deliver(channelRegistry.expireRemote(now: now))
        guard now &- channelsAnnouncedAt >= Self.channelAnnounceSeconds * 1000 else { return }
        channelsAnnouncedAt = now
        let counted = channelRegistry.localCounts
        if !counted.isEmpty { options.cluster?.publishChannelCounts(counted) }
    }

    /// Another node's channel counts or broadcast. On the sync queue.
    func channelEvent(_ event: ClusterEvent) {
        switch event {
        case .channelCounts(let node, let counts):
            deliver(channelRegistry.remote(node, counts: counts, now: options.now()))
        case .channelBroadcast(let message):
            deliver(channelRegistry.remoteBroadcast(message))
        default:
            break
        }
    }
}
