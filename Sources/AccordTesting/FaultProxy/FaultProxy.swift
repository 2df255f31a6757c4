import Foundation

/// A TCP proxy on `127.0.0.1` that injects network faults between a WebSocket client
/// and a server, for tests of sync under a bad network.
///
/// Point the client at ``port`` instead of the server. The proxy forwards bytes to the
/// target unchanged until it has seen the HTTP upgrade, then cuts each direction into
/// WebSocket frames (RFC 6455) so that faults act on whole messages: the frames of a
/// fragmented message are held until its last frame, then dropped, duplicated or
/// delayed together. Frames are forwarded byte for byte (client frames keep their
/// masks; a duplicate is the same bytes sent twice). Ping, pong and close frames pass
/// untouched, except while ``halfOpen`` is on. Connections that are not WebSocket
/// upgrades, and streams that break the framing rules, are passed through as raw bytes.
///
/// Every control can change while connections are live, from any thread:
/// - ``cutAll()`` closes both sides of every connection, as a lost network would
///   (the client's WebSocket reports 1006); new connections still work.
/// - ``refuseNew``: new connections are accepted and closed at once.
/// - ``halfOpen``: nothing is forwarded either way, yet both sockets stay open, so each
///   peer sees silence, never a close: only heartbeats can tell. Frames sent meanwhile
///   are lost (counted in ``DirectionCounters/framesSwallowed``); a peer's close or FIN
///   is held back until half-open ends. Turning it off lets later traffic through.
/// - ``setFaults(_:_:)``: drop, duplicate and delay per direction (``MessageFaults``),
///   decided by a ``SplitMix64`` seeded from ``seed``, the connection's accept order and
///   the direction, so the same run replays the same faults.
///
/// ```swift
/// let server = try WebSocketServer(...)
/// let proxy = try FaultProxy(targetPort: server.port, seed: 42)
/// let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(proxy.port)/v1/sync/doc")
/// proxy.setFaults(.init(dropProbability: 0.2, delay: .zero ... .milliseconds(200)))
/// proxy.halfOpen = true    // heartbeats must notice
/// proxy.cutAll()           // reconnects must recover
/// print(proxy.counters.clientToServer.messagesDropped)
/// await proxy.stop()
/// ```
///
/// Each connection runs four threads (a reader and a writer per direction) blocking on
/// plain POSIX sockets, never a Swift concurrency thread. Meant for tests with tens of
/// connections, not for load.
///
/// ## Topics
///
/// ### Starting and stopping
/// - ``init(targetHost:targetPort:seed:port:)``
/// - ``port``
/// - ``stop()``
///
/// ### Connection faults
/// - ``cutAll()``
/// - ``refuseNew``
/// - ``halfOpen``
/// - ``silence(_:_:)``
///
/// ### Message faults
/// - ``MessageFaults``
/// - ``Direction``
/// - ``setFaults(_:_:)``
/// - ``setFaults(_:)``
/// - ``faults(_:)``
///
/// ### Observing
/// - ``Counters``
/// - ``DirectionCounters``
/// - ``counters``
/// - ``openConnections``
public final class FaultProxy: Sendable {
    /// A socket call that failed while starting the proxy.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// The call, such as `bind` or `connect 127.0.0.1:80`.
        public var call: String
        public var errno: Int32
        public var description: String { "FaultProxy: \(call) failed (errno \(errno))" }
    }

    /// The port clients connect to, on 127.0.0.1.
    public let port: Int
    public let targetHost: String
    public let targetPort: Int
    /// Seeds every fault decision.
    public let seed: UInt64
    private let core: ProxyCore

    /// Starts listening on `127.0.0.1:port` (0: the kernel picks; read ``port``) and
    /// forwards each connection to `targetHost:targetPort`.
    ///
    /// - Parameters:
    ///   - targetHost: an IPv4 address.
    ///   - seed: seeds the drop, duplicate and delay decisions.
    /// - Throws: ``Failure`` when the listening socket cannot be set up, or `targetHost`
    ///   is not an IPv4 address.
    public init(targetHost: String = "127.0.0.1", targetPort: Int, seed: UInt64 = 0, port: Int = 0)
        throws(Failure)
    {
        try ProxySocket.checkIPv4(targetHost)
        let (listener, boundPort) = try ProxySocket.makeListener(port: port)
        self.port = boundPort
        self.targetHost = targetHost
        self.targetPort = targetPort
        self.seed = seed
        let core = ProxyCore(seed: seed, targetHost: targetHost, targetPort: targetPort)
        self.core = core
        core.spawn("FaultProxy.accept:\(boundPort)") { core.runAcceptor(listener: listener) }
    }

    deinit {
        core.stop()
    }

    /// When true, new connections are accepted and closed at once, before any byte is
    /// read (the client's connect fails). Live connections are not touched.
    public var refuseNew: Bool {
        get { core.withState { $0.refuseNew } }
        set { core.withState { $0.refuseNew = newValue } }
    }

    /// When true, nothing is forwarded in either direction while both sockets stay
    /// open: messages, control frames and raw bytes are swallowed, and a peer's FIN is
    /// held back. Applies to live and new connections. Setting it false resumes
    /// forwarding (swallowed frames stay lost) and delivers any held-back FIN.
    public var halfOpen: Bool {
        get { core.withState { $0.halfOpen } }
        set {
            core.withState { $0.halfOpen = newValue }
            core.wakeWriters()
        }
    }

    /// Makes every connection open now half-open for the rest of its life (as
    /// ``halfOpen`` does, but new connections are not affected): the silent link a
    /// heartbeat must notice, while the reconnect it triggers goes through.
    public func freezeOpenConnections() {
        core.withState { state in state.frozen.formUnion(state.connections.keys) }
        core.wakeWriters()
    }

    /// Swallows everything travelling in `direction` (on live and new connections) while
    /// on, as ``halfOpen`` does for both: a request arrives but its answer is lost, which
    /// is how a commit whose acknowledgment never came looks to a client. Turning it off
    /// resumes forwarding; what was swallowed stays lost.
    public func silence(_ direction: Direction, _ on: Bool = true) {
        core.withState { state in
            if on { state.silenced.insert(direction) } else { state.silenced.remove(direction) }
        }
        core.wakeWriters()
    }

    /// The message faults now applied in `direction`.
    public func faults(_ direction: Direction) -> MessageFaults {
        core.withState { $0.faults[ProxyCore.slot(direction)] }
    }

    /// Applies `faults` to messages that complete from now on in `direction`, on live
    /// and new connections. Messages already queued keep their fate.
    public func setFaults(_ faults: MessageFaults, _ direction: Direction) {
        core.withState { $0.faults[ProxyCore.slot(direction)] = faults }
    }

    /// Applies `faults` in both directions.
    public func setFaults(_ faults: MessageFaults) {
        for direction in Direction.allCases { setFaults(faults, direction) }
    }

    /// Closes both sides of every live connection at once (each peer reads end of
    /// stream; a WebSocket reports 1006). Queued messages are lost. The proxy keeps
    /// accepting new connections.
    public func cutAll() {
        core.cutAll()
    }

    /// What the proxy has done so far.
    public var counters: Counters {
        core.withState { $0.counters }
    }

    /// Connections whose sockets are still open.
    public var openConnections: Int {
        core.withState { $0.connections.count }
    }

    /// Closes every connection and the listening socket, and waits (without blocking a
    /// thread) until all of the proxy's threads ended. The port is free afterwards.
    public func stop() async {
        core.stop()
        let group = core.group
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { continuation.resume() }
        }
    }
}
