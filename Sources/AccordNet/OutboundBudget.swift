/// The rule that bounds what one server connection may have queued for sending (issue
/// 14: a reader that never reads made the server queue a full document per tiny
/// request). Pure bookkeeping, no locks and no sockets; `OutboundLedger` keeps one per
/// connection behind its lock.
///
/// Bytes count from `WebSocketConnection.send` (so the mailbox is covered) until the
/// message has gone to the kernel: through the mailbox, the peer's queue and lws' own
/// buffer of a short write (lws keeps what the socket did not take and reports it
/// written). Payload bytes are counted; frame headers and the kernel's socket buffer
/// are not.
///
/// The limit applies to every message but one: a single message larger than the
/// limit (the sync step 2 of a large document) is admitted when no other such message
/// is queued, and does not count against the limit while it waits. So a client joining
/// a document larger than the limit still receives it, with `limit` bytes of room for
/// what follows it, and a connection holds at most `limit` bytes plus one message.
struct OutboundBudget: Hashable, Sendable {
    let limit: Int
    /// Everything admitted and not yet written or discarded, the large message included.
    private(set) var queuedBytes = 0
    /// The largest `queuedBytes` ever reached.
    private(set) var peakBytes = 0
    /// Size of the one queued message larger than `limit`, or 0.
    private var oversizeBytes = 0
    /// Messages admitted so far; a message's number is its ticket.
    private(set) var admitted: UInt64 = 0
    /// Every message up to this one was written or discarded.
    private(set) var settled: UInt64 = 0
    /// Messages settled out of order, past `settled`: a slow-consumer close discards
    /// the queue while an older message is still in lws' buffer.
    private var settledAhead: Set<UInt64> = []
    /// Set by the first refusal: the connection is being closed, nothing more is taken.
    private(set) var isExhausted = false

    init(limit: Int) { self.limit = max(limit, 0) }

    enum Admission: Hashable, Sendable {
        /// Queue it; `ticket` tells when it has left (see `isPending`).
        case admitted(ticket: UInt64)
        /// Over the limit: the caller closes the connection (`first` only once).
        case refused(first: Bool)
    }

    mutating func admit(_ bytes: Int) -> Admission {
        guard !isExhausted else { return .refused(first: false) }
        if bytes > limit {
            guard oversizeBytes == 0 else { return refuse() }
            oversizeBytes = bytes
        } else if queuedBytes - oversizeBytes + bytes > limit {
            return refuse()
        }
        queuedBytes += bytes
        peakBytes = max(peakBytes, queuedBytes)
        admitted += 1
        return .admitted(ticket: admitted)
    }

    /// The message with `ticket` left the queue: written to the kernel, or dropped.
    mutating func settle(_ bytes: Int, ticket: UInt64) {
        queuedBytes = max(0, queuedBytes - bytes)
        if bytes > limit { oversizeBytes = 0 }
        guard ticket > settled else { return }
        settledAhead.insert(ticket)
        while settledAhead.remove(settled + 1) != nil { settled += 1 }
    }

    /// True while the message with this ticket is still queued.
    func isPending(_ ticket: UInt64) -> Bool {
        ticket > settled && ticket <= admitted && !settledAhead.contains(ticket)
    }

    private mutating func refuse() -> Admission {
        isExhausted = true
        return .refused(first: true)
    }
}
