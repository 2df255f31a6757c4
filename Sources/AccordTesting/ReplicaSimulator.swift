import AccordCRDT

/// Accord replicas editing at random over a hostile network, for convergence fuzzing.
///
/// Every local transaction's update is broadcast as one message per other replica. The
/// network delivers messages in random order, duplicates some, drops some (they are
/// redelivered later), and sometimes partitions the replicas into two groups that only
/// talk within themselves until healed. Replicas also run state-vector syncs
/// (`encodeStateAsUpdate(from:)`). ``quiesce()`` heals everything and delivers all
/// messages; ``divergence()`` then reports the first difference between replicas.
///
/// ```swift
/// let sim = ReplicaSimulator(seed: 42)
/// try sim.run(steps: 300)
/// try sim.quiesce()
/// #expect(try sim.divergence() == nil)
/// ```
public final class ReplicaSimulator {
    /// The origin of every update the simulator applies; local edits use ``localOrigin``.
    public static let remoteOrigin: Origin = "simulator-remote"
    public static let localOrigin: Origin = "simulator-local"

    public struct Options: Sendable {
        public var replicas = 5
        /// Per step: chance of a local edit transaction (1 to 3 operations).
        public var editChance = 0.6
        /// Per step: chance of delivering one random message.
        public var deliverChance = 0.5
        public var duplicateChance = 0.04
        public var dropChance = 0.04
        public var redeliverChance = 0.04
        public var syncChance = 0.04
        public var flushChance = 0.01
        public var partitionChance = 0.02
        /// Whether replicas garbage-collect deleted content.
        public var gc = true
        public init() {}
    }

    /// A message in flight.
    public struct Message: Sendable {
        public var from: Int
        public var to: Int
        public var update: [UInt8]
    }

    public let docs: [Doc]
    public let schema: DocumentSchema
    public let editor: RandomEditor
    public let options: Options
    /// Every update a replica produced itself (edits and Yjs formatting clean-ups), in order.
    public private(set) var updates: [[UInt8]] = []
    /// What happened, step by step (for failure reports).
    public private(set) var trace: [String] = []
    /// Keep the trace (off for speed; a replay turns it on).
    public var recordsTrace = false

    private var rng: SplitMix64
    private var inFlight: [Message] = []
    private var dropped: [Message] = []
    /// Partition group of each replica; all equal when the network is whole.
    private var group: [Int]
    private var subscriptions: [Subscription] = []

    public init(seed: UInt64, options: Options = Options(), editor: RandomEditor = RandomEditor()) {
        rng = SplitMix64(seed: seed)
        self.options = options
        self.editor = editor
        self.schema = editor.schema
        var used = Set<ClientID>()
        var docs: [Doc] = []
        for _ in 0..<options.replicas {
            var id: ClientID
            repeat { id = ClientID(UInt32.random(in: 1 ... .max, using: &rng)) } while !used.insert(id).inserted
            docs.append(Doc(clientID: id, gc: options.gc))
        }
        self.docs = docs
        group = Array(repeating: 0, count: options.replicas)
        for (i, doc) in docs.enumerated() {
            subscriptions.append(doc.onUpdate { [unowned self] update, origin in
                guard origin != Self.remoteOrigin else { return }
                self.updates.append(update)
                for j in self.docs.indices where j != i { self.inFlight.append(Message(from: i, to: j, update: update)) }
            })
        }
    }

    /// Messages waiting for delivery (including ones blocked by a partition).
    public var inFlightCount: Int { inFlight.count }

    private func connected(_ a: Int, _ b: Int) -> Bool { group[a] == group[b] }

    private func note(_ s: @autoclosure () -> String) {
        if recordsTrace { trace.append(s()) }
    }

    /// One random step: maybe a network event, maybe an edit.
    public func step() throws {
        if rng.chance(options.partitionChance) { togglePartition() }
        if rng.chance(options.flushChance) { try flush() }
        if rng.chance(options.dropChance), let i = randomDeliverable() {
            note("drop \(inFlight[i].from)->\(inFlight[i].to)")
            dropped.append(inFlight.remove(at: i))
        }
        if rng.chance(options.redeliverChance), !dropped.isEmpty {
            let m = dropped.remove(at: Int.random(in: 0..<dropped.count, using: &rng))
            note("requeue \(m.from)->\(m.to)")
            inFlight.append(m)
        }
        if rng.chance(options.duplicateChance), let i = randomDeliverable() {
            try deliver(inFlight[i], duplicate: true)
        }
        if rng.chance(options.syncChance) {
            let a = Int.random(in: 0..<docs.count, using: &rng), b = Int.random(in: 0..<docs.count, using: &rng)
            if a != b, connected(a, b) { try sync(from: a, to: b) }
        }
        if rng.chance(options.deliverChance), let i = randomDeliverable() {
            try deliver(inFlight.remove(at: i), duplicate: false)
        }
        if rng.chance(options.editChance) { try edit(replica: Int.random(in: 0..<docs.count, using: &rng)) }
    }

    public func run(steps: Int) throws {
        for _ in 0..<steps { try step() }
    }

    /// A random edit transaction of 1 to 3 operations on `replica`.
    public func edit(replica r: Int) throws {
        let doc = docs[r]
        let count = rng.chance(0.8) ? 1 : Int.random(in: 2...3, using: &rng)
        try doc.transact(origin: Self.localOrigin) {
            for _ in 0..<count {
                let op = editor.nextOperation(view: try schema.editView(of: doc), using: &rng)
                note("edit \(r): \(op)")
                try doc.perform(op)
            }
        }
    }

    private func randomDeliverable() -> Int? {
        let candidates = inFlight.indices.filter { connected(inFlight[$0].from, inFlight[$0].to) }
        return candidates.randomElement(using: &rng)
    }

    private func deliver(_ m: Message, duplicate: Bool) throws {
        note("\(duplicate ? "duplicate" : "deliver") \(m.from)->\(m.to) \(m.update.count) bytes")
        try docs[m.to].applyUpdate(m.update, origin: Self.remoteOrigin)
    }

    /// `to` asks `from` for everything it lacks (a sync step 1/2 exchange).
    public func sync(from a: Int, to b: Int) throws {
        note("sync \(a)->\(b)")
        let update = try docs[a].encodeStateAsUpdate(from: docs[b].encodeStateVector())
        try docs[b].applyUpdate(update, origin: Self.remoteOrigin)
    }

    private func togglePartition() {
        if Set(group).count > 1 {
            note("heal")
            group = Array(repeating: 0, count: docs.count)
        } else {
            group = docs.indices.map { _ in rng.chance(0.5) ? 1 : 0 }
            note("partition \(group)")
        }
    }

    /// Delivers every deliverable message, in random order, including the ones their
    /// delivery causes.
    public func flush() throws {
        note("flush")
        while let i = randomDeliverable() { try deliver(inFlight.remove(at: i), duplicate: false) }
    }

    /// Heals partitions, redelivers dropped messages, delivers everything, then runs a
    /// state-vector sync between every pair, until nothing is left to send.
    public func quiesce() throws {
        group = Array(repeating: 0, count: docs.count)
        inFlight.append(contentsOf: dropped)
        dropped.removeAll()
        for _ in 0..<10 {
            try flush()
            for a in docs.indices { for b in docs.indices where a != b { try sync(from: a, to: b) } }
            if inFlight.isEmpty { return }
        }
    }

    /// Nil when every replica has the same JSON (text deltas with attributes included),
    /// state vector and no pending updates, and when each replica's full state loads into
    /// a fresh document with the same JSON; otherwise the first difference found.
    public func divergence() throws -> String? {
        let reference = try schema.comparableJSON(of: docs[0])
        for (i, doc) in docs.enumerated() {
            if doc.hasPendingUpdates { return "replica \(i) still has pending updates" }
            let json = try schema.comparableJSON(of: doc)
            if json != reference {
                return "replica \(i) differs from replica 0: \(LooseJSON.firstDifference(json, reference) ?? "?")"
            }
            if doc.stateVector != docs[0].stateVector {
                return "replica \(i) state vector \(doc.stateVector) vs replica 0 \(docs[0].stateVector)"
            }
            let fresh = Doc(clientID: 1, gc: options.gc)
            try fresh.applyUpdate(doc.encodeStateAsUpdate())
            let reloaded = try schema.comparableJSON(of: fresh)
            if reloaded != json {
                return "replica \(i) reloaded from encodeStateAsUpdate differs: \(LooseJSON.firstDifference(reloaded, json) ?? "?")"
            }
        }
        return nil
    }
}
