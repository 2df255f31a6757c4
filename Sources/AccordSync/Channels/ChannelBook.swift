import AccordCRDT

/// A client's attached channels and the calls waiting for the server's answer about
/// one: confined to the client's executor, like the rest of its state.
struct ChannelBook {
    struct Attached {
        let channel: Channel
        var realtime: Bool
    }

    /// What a waiting call wants: an attach returns once the server answered (or the
    /// wait ended: it stays attached and is re-attached on the next connection); a
    /// sync needs the count itself.
    enum WaitKind { case attach, sync }

    struct Waiter {
        let id: UInt64
        let kind: WaitKind
        let continuation: CheckedContinuation<Result<UInt64, AccordError>, Never>
    }

    var attached: [ChannelKey: Attached] = [:]
    var waiters: [ChannelKey: [Waiter]] = [:]
    private var nextWaiterID: UInt64 = 0

    mutating func newWaiterID() -> UInt64 {
        nextWaiterID += 1
        return nextWaiterID
    }

    /// Ends every wait on `key` with `result`.
    mutating func resolve(_ key: ChannelKey, _ result: Result<UInt64, AccordError>) {
        for waiter in waiters.removeValue(forKey: key) ?? [] { waiter.continuation.resume(returning: result) }
    }

    /// Ends one wait (its deadline passed): an attach succeeds, a sync fails.
    mutating func expire(_ key: ChannelKey, waiter id: UInt64, error: AccordError) {
        guard let index = waiters[key]?.firstIndex(where: { $0.id == id }), let waiter = waiters[key]?.remove(at: index)
        else { return }
        if waiters[key]?.isEmpty == true { waiters[key] = nil }
        waiter.continuation.resume(returning: waiter.kind == .attach ? .success(0) : .failure(error))
    }

    /// The connection is gone: attaches return (they are re-sent on the next
    /// connection), syncs fail with `error`.
    mutating func connectionLost(_ error: AccordError) {
        let all = waiters
        waiters = [:]
        for waiter in all.values.joined() {
            waiter.continuation.resume(returning: waiter.kind == .attach ? .success(0) : .failure(error))
        }
    }
}
