import Foundation

/// The state every thread of a ``FaultProxy`` shares: the controls, the counters and the
/// live connections, behind one lock. Threads hold the core, never the `FaultProxy`, so
/// releasing the proxy stops it.
final class ProxyCore: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `state` is read and written only inside
    // `lock`; `group`, `seed` and the target are immutable after init.
    struct State {
        var faults: [FaultProxy.MessageFaults] = [.none, .none]  // indexed by `slot(_:)`
        var halfOpen = false
        /// Connections (by accept order) that are half-open on their own, for good.
        var frozen: Set<Int> = []
        /// Directions in which nothing is forwarded, on every connection.
        var silenced: Set<FaultProxy.Direction> = []
        var refuseNew = false
        var stopped = false
        var counters = FaultProxy.Counters()
        var connections: [Int: ProxyConnection] = [:]
        var lastIndex = 0
        /// Bumped by every `cutAll`, so a connection still dialling the target when the
        /// cut came is closed once it connects.
        var cutGeneration = 0
    }

    private let lock = NSLock()
    private var state = State()
    /// Entered by every thread the proxy starts, left when it ends; `stop` waits on it.
    let group = DispatchGroup()
    let seed: UInt64
    let targetHost: String
    let targetPort: Int

    init(seed: UInt64, targetHost: String, targetPort: Int) {
        self.seed = seed
        self.targetHost = targetHost
        self.targetPort = targetPort
    }

    func withState<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// Whether connection `index` forwards nothing in `direction` now.
    static func isSilenced(_ index: Int, _ direction: FaultProxy.Direction, in state: State) -> Bool {
        state.halfOpen || state.frozen.contains(index) || state.silenced.contains(direction)
    }

    static func slot(_ direction: FaultProxy.Direction) -> Int { direction == .clientToServer ? 0 : 1 }

    /// Runs `body` on a new thread (blocking socket I/O never runs on a Swift concurrency thread).
    func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread { [group] in
            body()
            group.leave()
        }
        thread.name = name
        thread.start()
    }

    /// The generator for one direction of one connection: a function of the seed, the
    /// connection's accept order (from 1) and the direction only, so a run replays
    /// exactly when the same messages travel the same connections.
    func generator(connection index: Int, _ direction: FaultProxy.Direction) -> SplitMix64 {
        var base = SplitMix64(seed: seed)
        var perConnection = SplitMix64(seed: base.next() ^ UInt64(index))
        var perDirection = SplitMix64(seed: perConnection.next() ^ UInt64(Self.slot(direction) + 1))
        return SplitMix64(seed: perDirection.next())
    }

    /// Closes both sides of every live connection.
    func cutAll() {
        let connections = withState { state in
            state.cutGeneration += 1
            return Array(state.connections.values)
        }
        for connection in connections { connection.tearDown() }
    }

    /// Wakes every connection's writers, after a control they wait on changed.
    func wakeWriters() {
        let connections = withState { Array($0.connections.values) }
        for connection in connections { connection.wake() }
    }

    func stop() {
        withState { $0.stopped = true }
        cutAll()
    }

    // MARK: Threads

    /// Accepts until stopped; owns and finally closes the listening socket.
    func runAcceptor(listener: Int32) {
        while !withState({ $0.stopped }) {
            guard let fd = ProxySocket.acceptConnection(listener, waitingUpTo: 50) else { continue }
            let admitted: (index: Int, generation: Int)? = withState { state in
                if state.stopped { return nil }
                if state.refuseNew {
                    state.counters.connectionsRefused += 1
                    return nil
                }
                state.counters.connectionsAccepted += 1
                state.lastIndex += 1
                return (state.lastIndex, state.cutGeneration)
            }
            guard let admitted else {
                ProxySocket.closeSocket(fd)
                continue
            }
            spawn("FaultProxy.dial#\(admitted.index)") { [self] in
                dial(client: fd, index: admitted.index, generation: admitted.generation)
            }
        }
        ProxySocket.closeSocket(listener)
    }

    /// Connects the accepted client to the target, then starts its four pumps.
    private func dial(client: Int32, index: Int, generation: Int) {
        let server: Int32
        do {
            server = try ProxySocket.connectTo(host: targetHost, port: targetPort)
        } catch {
            withState { $0.counters.targetConnectFailures += 1 }
            ProxySocket.closeSocket(client)
            return
        }
        let connection = ProxyConnection(index: index, client: client, server: server, core: self)
        let live = withState { state in
            guard !state.stopped, state.cutGeneration == generation else { return false }
            state.connections[index] = connection
            return true
        }
        guard live else {
            ProxySocket.closeSocket(client)
            ProxySocket.closeSocket(server)
            return
        }
        connection.start()
    }

    /// Called by a connection once its last thread ended and its sockets are closed.
    func remove(_ connection: ProxyConnection) {
        withState { _ = $0.connections.removeValue(forKey: connection.index) }
    }
}
