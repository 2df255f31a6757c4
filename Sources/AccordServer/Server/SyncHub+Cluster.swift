import AccordCRDT
import AccordStore
import Dispatch

/// Following the other nodes of a cluster: each open room remembers the shared log
/// position its document holds (`LoadedRoom.through`), and a notice of entries past it
/// makes the room read the log from there and relay what is new to its members. The
/// notice only says where to look: entries are applied from the log, in log order, and
/// a position only moves forward, so nothing is applied twice or skipped, even when
/// notices are lost (a `.resync` after a reconnect reads every room's log). A room
/// lent to REST work (`SyncHub+Lease.swift`) takes its notices when it comes back.
///
/// Reads run on `catchUpQueue`, never on the sync queue: the storage is serial, so a
/// read there would wait for whatever commit holds it, and every room of the node
/// with it (that wait was most of the cross-node p99 in `accord-bench cluster`).
///
/// Notices of one document can arrive out of log order (PostgreSQL sends them from a
/// transaction behind each commit, see `PostgresStorageSchema`, and two nodes' can
/// pass each other). One that starts past the room's position and carries its entries
/// (or is this node's own) is held up to ``noticeGapMilliseconds`` for the notices
/// before it, and applied in order when they come; only a gap that stays open costs a
/// read of the log (which waits behind the node's commit in flight).
extension SyncHub {
    /// How long a notice ahead of the room's position waits for the ones before it.
    static let noticeGapMilliseconds = 25

    func clusterEvent(_ event: ClusterEvent) {
        let received = DispatchTime.now().uptimeNanoseconds
        queue.async { [self] in
            guard !isStopped else { return }
            switch event {
            case .resync:
                for id in rooms.keys.sorted() { catchUp(id, noticedAt: received) }
            case .awareness(let id, let update):
                whenFree(id) { [self] in
                    guard let room = rooms[id]?.room else { return }
                    perform(room.applyRemoteAwareness(update, now: options.now()), in: room)
                }
            case .broadcast(let id, let topic, let payload, let sender):
                whenFree(id) { [self] in
                    guard let room = rooms[id]?.room else { return }
                    perform(room.applyRemoteBroadcast(topic: topic, payload: payload, sender: sender), in: room)
                }
            case .accessChanged(let id):
                // Another node changed the rows or deleted the document: what this node
                // cached about it is stale.
                documents.forgetCached(id)
                directory.access.forgetCached(id)
                reloadGroups(grantedBy: id)
                recheckAccess(id)
            case .groupChanged(let group):
                groupChangedElsewhere(group)
            case .collectionChanged(let collection):
                collectionChangedElsewhere(collection)
            case .channelCounts, .channelBroadcast:
                channelEvent(event)
            case .appended(let id, let first, let last, let fromThisNode, let updates):
                whenFree(id) { [self] in
                    appended(id, first: first, last: last, fromThisNode: fromThisNode, updates: updates, noticedAt: received)
                }
            }
        }
    }

    private func appended(
        _ id: DocumentID, first: UInt64, last: UInt64, fromThisNode: Bool, updates: [[UInt8]]?, noticedAt received: UInt64
    ) {
        guard let loaded = rooms[id], let through = loaded.through, last > through else { return }
        if loaded.catchUpQueued {
            // The read under way may have started before these entries committed.
            rooms[id]?.noticedThrough = max(loaded.noticedThrough, last)
        } else {
            let notice = HeldNotices.Notice(first: first, last: last, fromThisNode: fromThisNode, updates: updates, received: received)
            switch rooms[id]?.heldNotices.receive(notice, through: through) {
            case .apply:
                applyInOrder(id, notice)
                applyHeldNotices(id)
            case .hold(let startTimer):
                guard startTimer else { return }
                let room = ObjectIdentifier(loaded.room)
                queue.asyncAfter(deadline: .now() + .milliseconds(Self.noticeGapMilliseconds)) { [self] in
                    whenFree(id) { [self] in noticeGapExpired(id, room: room) }
                }
            case .read, nil:
                catchUp(id, noticedAt: received)
            }
        }
    }

    /// Applies a notice that starts right after the room's position: this node's own
    /// entries are in the room already; another node's came in the notice.
    private func applyInOrder(_ id: DocumentID, _ notice: HeldNotices.Notice) {
        guard let loaded = rooms[id] else { return }
        if !notice.fromThisNode, let updates = notice.updates {
            for update in updates {
                do throws(AccordError) {
                    perform(try loaded.room.applyRemote(update), in: loaded.room)
                } catch {
                    metrics.error(error.code.rawValue)
                }
            }
            metrics.clusterCarried(updates.count)
            metrics.clusterNoticeApplied(milliseconds: Self.milliseconds(since: notice.received))
        }
        rooms[id]?.through = notice.last
    }

    /// Applies the held notices that now follow the room's position, in order.
    private func applyHeldNotices(_ id: DocumentID) {
        while let through = rooms[id]?.through, let next = rooms[id]?.heldNotices.next(after: through) {
            applyInOrder(id, next)
        }
    }

    /// The gap before the held notices did not close in time: read the log (which
    /// brings everything the held notices carry too).
    private func noticeGapExpired(_ id: DocumentID, room: ObjectIdentifier) {
        guard let loaded = rooms[id], ObjectIdentifier(loaded.room) == room, !loaded.heldNotices.isEmpty else { return }
        let oldest = rooms[id]?.heldNotices.expire()
        catchUp(id, noticedAt: oldest)
    }

    /// Reads what the document's shared log gained since the room last looked (on
    /// `catchUpQueue`) and applies it on the sync queue. One read at a time per room;
    /// notices meanwhile only raise `noticedThrough`, and a read follows if the first
    /// did not reach it. A failed read leaves the position where it was; the next
    /// notice retries. Call on the sync queue.
    func catchUp(_ id: DocumentID, noticedAt received: UInt64? = nil) {
        guard let loaded = rooms[id], let through = loaded.through else { return }
        if let received, loaded.noticeWaitingSince == nil { rooms[id]?.noticeWaitingSince = received }
        guard !loaded.catchUpQueued else { return }
        rooms[id]?.catchUpQueued = true
        let documents = self.documents
        let room = ObjectIdentifier(loaded.room)
        catchUpQueue.async { [self] in
            let read = Result { () throws(AccordError) in try documents.sharedChanges(id, after: through) }
            queue.async { [self] in whenFree(id) { [self] in applyCatchUp(id, room: room, read) } }
        }
    }

    private func applyCatchUp(_ id: DocumentID, room: ObjectIdentifier, _ read: Result<DocumentStore.SharedChanges, AccordError>) {
        // Unloaded (or unloaded and loaded again, with a position of its own) meanwhile.
        guard !isStopped, let loaded = rooms[id], ObjectIdentifier(loaded.room) == room, let through = loaded.through else { return }
        rooms[id]?.catchUpQueued = false
        let changes: DocumentStore.SharedChanges
        switch read {
        case .success(let value):
            changes = value
        case .failure(let error):
            rooms[id]?.noticedThrough = 0
            rooms[id]?.noticeWaitingSince = nil
            if error.code == .documentNotFound {
                documents.forgetCached(id)
                recheckAccess(id)
            }
            return
        }
        for update in changes.updates {
            do {
                perform(try loaded.room.applyRemote(update), in: loaded.room)
            } catch {
                // Stored by another node, so it decoded there; a failure here is a bug
                // or corruption, and must not stop the updates after it.
                metrics.error(error.code.rawValue)
            }
        }
        let reached = max(through, changes.through)
        rooms[id]?.through = reached
        applyHeldNotices(id)
        metrics.clusterApplied(changes.updates.count)
        if let since = loaded.noticeWaitingSince {
            metrics.clusterNoticeApplied(milliseconds: Self.milliseconds(since: since))
        }
        rooms[id]?.noticeWaitingSince = nil
        if loaded.noticedThrough > reached {
            // Entries committed after the read began: read again.
            rooms[id]?.noticedThrough = 0
            catchUp(id, noticedAt: DispatchTime.now().uptimeNanoseconds)
        } else {
            rooms[id]?.noticedThrough = 0
        }
    }

    private static func milliseconds(since start: UInt64) -> UInt64 {
        (DispatchTime.now().uptimeNanoseconds &- start) / 1_000_000
    }
}

extension SyncHub {
    /// Someone changed a group's members through this node: tell the users concerned,
    /// re-check the rooms of the group's documents (a removed member's next message is
    /// refused), and tell the other nodes of a cluster to do the same.
    func groupChanged(_ group: GroupKey, added: Set<String>, removed: Set<String>) {
        options.cluster?.announceGroupChanged(group)
        directoryChanged(.membership(group, added: added, removed: removed))
        for id in (try? directory.access.groups.documents(of: group)) ?? [] { recheckAccess(id) }
    }

    /// Another node changed a group's members: read the group again, then do what the
    /// node that changed it did. On the sync queue.
    func groupChangedElsewhere(_ group: GroupKey) {
        let groups = directory.access.groups
        guard let (added, removed) = try? groups.reload(group) else { return }
        if !added.isEmpty || !removed.isEmpty { publish(.membership(group, added: added, removed: removed)) }
        for id in (try? groups.documents(of: group)) ?? [] { recheckAccess(id) }
    }

    /// Someone changed a collection through this node: the other nodes of a cluster
    /// read it again (the rooms here are re-checked through the documents' access
    /// changes, which follow).
    func collectionChanged(_ id: String) {
        options.cluster?.announceCollectionChanged(id)
    }

    /// Another node changed a collection: read it again and re-check the rooms of the
    /// documents it covered or covers. On the sync queue.
    func collectionChangedElsewhere(_ id: String) {
        guard let documents = try? directory.access.collections.reload(id) else { return }
        for document in documents { recheckAccess(document) }
    }

    /// Another node changed the access row of `id`: the groups it now grants may have
    /// gained it, which this node's group store keeps in memory.
    func reloadGroups(grantedBy id: DocumentID) {
        guard let row = try? directory.access.access(id) else { return }
        for raw in (row.groups ?? [:]).keys {
            guard let group = GroupKey(rawValue: raw) else { continue }
            _ = try? directory.access.groups.reload(group)
        }
    }
}
