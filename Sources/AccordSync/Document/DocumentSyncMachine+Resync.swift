import AccordStore

/// Rounds a `realtime` document runs on its own while connected, because a live
/// update can go missing without the connection failing: a server may drop messages
/// (its rate limit does), and a fault injector can. A missed update is noticed when a
/// later one depends on it and stays pending in the `Doc` (the driver then calls
/// ``predecessorsMissing(now:)``), and otherwise by the next periodic resync.
extension DocumentSyncMachine {
    /// 60 s. Each resync costs a step 1 and the server's step 2, which carries the
    /// whole delete set, so it is a safety net, not the way changes travel: over TCP a
    /// connection delivers its messages or fails, and each new connection runs a round.
    /// y-websocket's `resyncInterval` is the same idea, off by default there.
    public static let defaultResyncInterval: UInt64? = 60_000

    /// The driver applied what the server sent and the `Doc` still holds updates whose
    /// predecessors never arrived: a live update was missed. Asks the server for what we
    /// lack (a round: our step 1), unless a step 2 is already on its way or we asked
    /// already in this episode (the server may lack it too; the periodic resync or the
    /// next connection asks again).
    public mutating func predecessorsMissing(now: UInt64) -> [DocumentSyncAction] {
        guard !localOnly, isConnected, roundStarted, mode.pullsLive, stepTwosAwaited == 0, !askedForMissing else {
            return []
        }
        askedForMissing = true
        return finish(startRound(now: now))
    }

    /// The driver applied what the server sent and nothing is pending in the `Doc`: a
    /// later gap is a new episode, worth asking about.
    public mutating func predecessorsArrived() {
        askedForMissing = false
    }

    /// Arms the first periodic resync of a connection. Documents opened together would
    /// all resync in the same instant, a burst the server's rate limit may drop; a phase
    /// taken from the id (up to half an interval) spreads them, and each keeps its phase.
    mutating func scheduleFirstResync(now: UInt64) {
        guard let interval = resyncInterval, interval > 0 else { return }
        nextResync = now + interval + Self.resyncPhase(id, interval: interval)
    }

    /// A round when the periodic resync is due, unless another round just ran or one
    /// still waits for its step 2 (the handshake budget looks after that one).
    mutating func resyncIfDue(now: UInt64, roundDone: Bool) -> [DocumentSyncAction] {
        guard let due = nextResync, now >= due, let interval = resyncInterval else { return [] }
        nextResync = now + interval
        guard mode == .realtime, !roundDone, stepTwosAwaited == 0 else { return [] }
        return startRound(now: now)
    }

    /// FNV-1a of the id's UTF-8, modulo half the interval: stable across runs, so a
    /// test can compute it.
    static func resyncPhase(_ id: DocumentID, interval: UInt64) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.rawValue.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash % (interval / 2 + 1)
    }
}
