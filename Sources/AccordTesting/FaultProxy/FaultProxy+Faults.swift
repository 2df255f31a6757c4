extension FaultProxy {
    /// Which way a message travels through the proxy.
    public enum Direction: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// From the peer that connected to the proxy (the client) to the target (the server).
        case clientToServer
        /// From the target back to the client.
        case serverToClient

        public var description: String {
            switch self {
            case .clientToServer: "client→server"
            case .serverToClient: "server→client"
            }
        }
    }

    /// Faults applied to whole WebSocket data messages travelling one way.
    ///
    /// Each message gets one roll of the connection's seeded generator for each fault, in
    /// this order: drop, duplicate, delay. A dropped message is never sent; a duplicated
    /// one is sent twice, back to back; a delayed one waits before it is sent, and so
    /// does everything behind it on that connection and direction, so order is kept.
    /// Control frames (ping, pong, close) are never dropped, duplicated or delayed
    /// themselves, but they keep their place behind delayed messages.
    ///
    /// ```swift
    /// proxy.setFaults(.init(dropProbability: 0.1, delay: .zero ... .milliseconds(200)), .clientToServer)
    /// proxy.setFaults(.init(duplicateProbability: 1, delay: .milliseconds(50)), .serverToClient)
    /// ```
    public struct MessageFaults: Sendable, Hashable {
        /// Chance, from 0 to 1, that a message is dropped.
        public var dropProbability: Double
        /// Chance, from 0 to 1, that a message that was not dropped is sent twice.
        public var duplicateProbability: Double
        /// How long each message waits before it is sent, picked uniformly from the range
        /// (a range of one value is a fixed delay). Negative bounds count as zero.
        public var delay: ClosedRange<Duration>

        /// No faults: every message passes at once.
        public static let none = MessageFaults()

        public init(
            dropProbability: Double = 0, duplicateProbability: Double = 0, delay: ClosedRange<Duration> = .zero ... .zero
        ) {
            self.dropProbability = dropProbability
            self.duplicateProbability = duplicateProbability
            self.delay = delay
        }

        /// Faults with a fixed delay.
        public init(dropProbability: Double = 0, duplicateProbability: Double = 0, delay: Duration) {
            self.init(dropProbability: dropProbability, duplicateProbability: duplicateProbability, delay: delay ... delay)
        }

        /// What happens to one message. Always draws three numbers, so changing the
        /// faults mid-run shifts no later decision of the generator.
        func roll(using generator: inout SplitMix64) -> Fate {
            let dropRoll = Double.random(in: 0..<1, using: &generator)
            let duplicateRoll = Double.random(in: 0..<1, using: &generator)
            let delayRoll = generator.next()
            let low = max(delay.lowerBound, .zero), high = max(delay.upperBound, .zero)
            let lowNanoseconds = Self.nanoseconds(low), span = UInt64(Self.nanoseconds(high) - lowNanoseconds)
            let offset = span == 0 ? 0 : delayRoll % (span &+ 1)
            return Fate(
                drop: dropRoll < dropProbability,
                duplicate: duplicateRoll < duplicateProbability,
                delay: .nanoseconds(lowNanoseconds + Int64(offset)))
        }

        private static func nanoseconds(_ duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }
    }

    /// The outcome of ``MessageFaults`` for one message.
    struct Fate: Equatable {
        var drop: Bool
        var duplicate: Bool
        var delay: Duration
    }

    /// What the proxy has done so far. Read it with ``FaultProxy/counters``.
    public struct Counters: Sendable, Hashable {
        /// Connections accepted and forwarded to the target (the target may still have
        /// refused the onward connection: see ``targetConnectFailures``).
        public var connectionsAccepted = 0
        /// Connections closed right after accept because ``FaultProxy/refuseNew`` was on.
        public var connectionsRefused = 0
        /// Accepted connections closed because the target could not be reached.
        public var targetConnectFailures = 0
        public var clientToServer = DirectionCounters()
        public var serverToClient = DirectionCounters()

        public init() {}

        public subscript(direction: Direction) -> DirectionCounters {
            get { direction == .clientToServer ? clientToServer : serverToClient }
            set {
                if direction == .clientToServer { clientToServer = newValue } else { serverToClient = newValue }
            }
        }
    }

    /// Counts for one direction, summed over every connection.
    public struct DirectionCounters: Sendable, Hashable {
        /// Data messages written to the far side (a duplicated message counts once here
        /// and once in ``messagesDuplicated``).
        public var messagesForwarded = 0
        /// Messages dropped by ``MessageFaults/dropProbability``.
        public var messagesDropped = 0
        /// Extra copies written by ``MessageFaults/duplicateProbability``.
        public var messagesDuplicated = 0
        /// Ping, pong and close frames written to the far side.
        public var controlFramesForwarded = 0
        /// Messages and control frames discarded because ``FaultProxy/halfOpen`` was on.
        public var framesSwallowed = 0

        public init() {}
    }
}
