import AccordCRDT
import AccordStore

/// Following the other nodes of a cluster: each open room remembers the shared log
/// position its document holds (`LoadedRoom.through`), and a notice of entries past it
/// makes the room read the log from there and relay what is new to its members. The
/// notice only says where to look: entries are applied from the log, in log order, and
/// a position only moves forward, so nothing is applied twice or skipped, even when
/// notices are lost (a `.resync` after a reconnect reads every room's log). A room
/// lent to REST work (`SyncHub+Lease.swift`) takes its notices when it comes back.
extension SyncHub {
    func clusterEvent(_ event: ClusterEvent) {
        queue.async { [self] in
            guard !isStopped else { return }
            switch event {
            case .resync:
                for id in rooms.keys.sorted() { catchUp(id) }
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
                recheckAccess(id)
            case .appended(let id, let first, let last, let fromThisNode, let updates):
                whenFree(id) { [self] in appended(id, first: first, last: last, fromThisNode: fromThisNode, updates: updates) }
            }
        }
    }

    private func appended(_ id: DocumentID, first: UInt64, last: UInt64, fromThisNode: Bool, updates: [[UInt8]]?) {
        guard let loaded = rooms[id], let through = loaded.through, last > through else { return }
        if fromThisNode, first == through + 1 {
            // Our own appends, right after what the room holds: already applied.
            rooms[id]?.through = last
        } else if let updates, first == through + 1, !loaded.catchUpQueued {
            // Right after what the room holds, and carried in the notice: no read.
            for update in updates {
                do throws(AccordError) {
                    perform(try loaded.room.applyRemote(update), in: loaded.room)
                } catch {
                    metrics.error(error.code.rawValue)
                }
            }
            rooms[id]?.through = last
            metrics.clusterCarried(updates.count)
        } else if rooms[id]?.catchUpQueued == false {
            // Behind the notices already queued: a burst of them costs one read.
            rooms[id]?.catchUpQueued = true
            queue.async { [self] in
                rooms[id]?.catchUpQueued = false
                catchUp(id)
            }
        }
    }

    /// Applies what the document's shared log gained since the room last looked. A
    /// failed read leaves the position where it was; the next notice retries.
    func catchUp(_ id: DocumentID) {
        whenFree(id) { [self] in catchUpNow(id) }
    }

    private func catchUpNow(_ id: DocumentID) {
        guard let loaded = rooms[id], let through = loaded.through else { return }
        let changes: DocumentStore.SharedChanges
        do {
            changes = try documents.sharedChanges(id, after: through)
        } catch {
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
        rooms[id]?.through = max(through, changes.through)
        metrics.clusterApplied(changes.updates.count)
    }
}
