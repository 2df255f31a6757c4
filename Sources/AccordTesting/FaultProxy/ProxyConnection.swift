import Foundation

/// One proxied connection: the accepted client socket, the socket to the target, and
/// four threads. For each direction a reader cuts what arrives into units
/// (``WebSocketStreamSplitter``), decides each message's fate and queues it; a writer
/// sends the queue in order, each item when it is due. Readers never wait on a delay,
/// so a delay holds back only what follows it, by no more than its own length.
final class ProxyConnection: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `queues`, `torn`, `liveThreads` and
    // `socketsClosed` are touched only with `condition` locked. The fds are immutable;
    // they are closed once, by the last thread to end, and `tearDown` only calls
    // `shutdown` on them while `socketsClosed` is false, so an fd number is never used
    // after it could have been reused.
    private enum Item {
        case message([UInt8], due: ContinuousClock.Instant, copies: Int)
        case control([UInt8], due: ContinuousClock.Instant)
        case raw([UInt8], due: ContinuousClock.Instant)
        /// The source reached end of stream: send a FIN on to the destination.
        case end

        var due: ContinuousClock.Instant? {
            switch self {
            case .message(_, let due, _), .control(_, let due), .raw(_, let due): due
            case .end: nil
            }
        }
    }

    /// A FIFO that pops from a moving head, so draining a long queue stays linear.
    private struct ItemQueue {
        private var items: [Item] = []
        private var head = 0

        var first: Item? { head < items.count ? items[head] : nil }

        mutating func append(contentsOf newItems: [Item]) { items.append(contentsOf: newItems) }

        mutating func removeFirst() -> Item {
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }
    }

    let index: Int
    private let client: Int32
    private let server: Int32
    private let core: ProxyCore
    private let condition = NSCondition()
    private var queues = [ItemQueue(), ItemQueue()]  // indexed by `ProxyCore.slot(_:)`
    private var torn = false
    private var liveThreads = 4
    private var socketsClosed = false

    init(index: Int, client: Int32, server: Int32, core: ProxyCore) {
        self.index = index
        self.client = client
        self.server = server
        self.core = core
    }

    func start() {
        for direction in FaultProxy.Direction.allCases {
            core.spawn("FaultProxy#\(index).read \(direction)") { [self] in
                runReader(direction)
                threadEnded()
            }
            core.spawn("FaultProxy#\(index).write \(direction)") { [self] in
                runWriter(direction)
                threadEnded()
            }
        }
    }

    /// Ends both sides at once (the peers read end of stream, and any thread blocked on
    /// a socket wakes); queued items are discarded.
    func tearDown() {
        condition.lock()
        defer { condition.unlock() }
        if !torn, !socketsClosed {
            torn = true
            ProxySocket.shutdownBoth(client)
            ProxySocket.shutdownBoth(server)
        }
        condition.broadcast()
    }

    /// Makes the writers look at the controls again.
    func wake() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    private func threadEnded() {
        condition.lock()
        liveThreads -= 1
        let last = liveThreads == 0
        if last { socketsClosed = true }
        condition.unlock()
        guard last else { return }
        ProxySocket.closeSocket(client)
        ProxySocket.closeSocket(server)
        core.remove(self)
    }

    private func enqueue(_ items: [Item], _ direction: FaultProxy.Direction) {
        guard !items.isEmpty else { return }
        condition.lock()
        queues[ProxyCore.slot(direction)].append(contentsOf: items)
        condition.broadcast()
        condition.unlock()
    }

    // MARK: Reader

    private func runReader(_ direction: FaultProxy.Direction) {
        let source = direction == .clientToServer ? client : server
        let slot = ProxyCore.slot(direction)
        var splitter = WebSocketStreamSplitter(side: direction == .clientToServer ? .client : .server)
        var generator = core.generator(connection: index, direction)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while let count = ProxySocket.receive(source, into: &buffer) {
            let units = splitter.feed(buffer[..<count])
            guard !units.isEmpty else { continue }
            let now = ContinuousClock.now
            var items: [Item] = []
            core.withState { state in
                for unit in units {
                    if ProxyCore.isSilenced(index, direction, in: state) {
                        state.counters[direction].framesSwallowed += 1
                        continue
                    }
                    switch unit {
                    case .head(let bytes), .raw(let bytes):
                        items.append(.raw(bytes, due: now))
                    case .control(let bytes, _):
                        items.append(.control(bytes, due: now))
                    case .message(let bytes, _):
                        let fate = state.faults[slot].roll(using: &generator)
                        if fate.drop {
                            state.counters[direction].messagesDropped += 1
                        } else {
                            items.append(.message(bytes, due: now + fate.delay, copies: fate.duplicate ? 2 : 1))
                        }
                    }
                }
            }
            enqueue(items, direction)
        }
        enqueue([.end], direction)
    }

    // MARK: Writer

    private func runWriter(_ direction: FaultProxy.Direction) {
        let destination = direction == .clientToServer ? server : client
        while let item = nextItem(direction) {
            switch item {
            case .end:
                ProxySocket.shutdownWrite(destination)
                return
            case .message(let bytes, _, let copies):
                for copy in 0..<copies {
                    guard ProxySocket.sendAll(destination, bytes) else { return tearDown() }
                    core.withState { state in
                        if copy == 0 {
                            state.counters[direction].messagesForwarded += 1
                        } else {
                            state.counters[direction].messagesDuplicated += 1
                        }
                    }
                }
            case .control(let bytes, _):
                guard ProxySocket.sendAll(destination, bytes) else { return tearDown() }
                core.withState { $0.counters[direction].controlFramesForwarded += 1 }
            case .raw(let bytes, _):
                guard ProxySocket.sendAll(destination, bytes) else { return tearDown() }
            }
        }
    }

    /// Waits for the next item to send: the queue's head once it is due. While the
    /// proxy is half-open, queued frames are swallowed and an end of stream is held
    /// back (the peer must see silence, not a close). Nil once the connection is torn down.
    private func nextItem(_ direction: FaultProxy.Direction) -> Item? {
        let slot = ProxyCore.slot(direction)
        condition.lock()
        defer { condition.unlock() }
        while !torn {
            guard let head = queues[slot].first else {
                condition.wait()
                continue
            }
            if core.withState({ ProxyCore.isSilenced(index, direction, in: $0) }) {
                if case .end = head {
                    condition.wait()
                } else {
                    _ = queues[slot].removeFirst()
                    core.withState { $0.counters[direction].framesSwallowed += 1 }
                }
                continue
            }
            if let due = head.due {
                let wait = ContinuousClock.now.duration(to: due)
                if wait > .zero {
                    let (seconds, attoseconds) = wait.components
                    _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) * 1e-18))
                    continue
                }
            }
            return queues[slot].removeFirst()
        }
        return nil
    }
}
