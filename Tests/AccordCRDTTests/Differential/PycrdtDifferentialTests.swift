import AccordCRDT
import AccordTesting
import Testing

/// Differential fuzzing against Yrs (through pycrdt): Accord and pycrdt replicas edit
/// the same document at random and exchange updates; after a full exchange every replica
/// must show the same text (with attributes), map and array, and the same state vector.
///
/// Updates reach Accord replicas in random order, with duplicates: Accord must integrate
/// whatever arrives, in one pass. They reach pycrdt replicas in causal order only (in
/// the order they were made, or as a state-vector diff), because Yrs 0.28 does not always
/// converge in one pass on shuffled input.
///
/// Needs `ACCORD_PYTHON` (the venv with pycrdt; `make test` sets it): without it the test
/// fails. `ACCORD_SEED=<n>` replays one seed with a full trace; `ACCORD_SOAK=1` runs
/// 5,000 seeds.
@Suite struct PycrdtDifferentialTests {
    static let seeds = FuzzSeeds(standard: 200, soak: 5_000)
    static let chunkCount = 4

    @Test(arguments: 0..<chunkCount)
    func accordAndYrsReplicasConverge(chunk: Int) throws {
        let seeds = Self.seeds.chunk(chunk, of: Self.chunkCount)
        guard !seeds.isEmpty else { return }
        let peer: PycrdtPeer
        do {
            peer = try PycrdtPeer()
        } catch {
            Issue.record("cannot run the differential tests: \(error)")
            return
        }
        defer { peer.close() }
        var failures = 0
        for seed in seeds {
            let run = DifferentialRun(seed: seed, peer: peer, steps: Self.seeds.isSoak ? 300 : 150)
            run.tracesTexts = Self.seeds.isReplay
            do {
                try run.execute()
            } catch {
                failures += 1
                // A replay writes the whole trace to a file (too long for an issue message).
                let full = Self.seeds.isReplay ? FuzzSeeds.writeTrace(run.trace, name: "differential-seed-\(seed)") : nil
                Issue.record("""
                    seed \(seed): \(error)
                    \(FuzzSeeds.replayHint(seed: seed, filter: "PycrdtDifferentialTests"))
                    \(full.map { "full trace: \($0)" } ?? "last 25 steps:\n" + run.trace.suffix(25).joined(separator: "\n"))
                    """)
            }
            run.dropPeerDocs()
            if failures >= 3 { break }
        }
    }
}

/// One seed: a few Accord and pycrdt replicas, random edits and deliveries, then a full
/// exchange and the comparison.
final class DifferentialRun {
    enum Replica {
        case accord(Doc)
        case pycrdt(String)
    }

    struct Mismatch: Error, CustomStringConvertible {
        var description: String
    }

    static let remote: Origin = "differential-remote"

    let seed: UInt64
    let peer: PycrdtPeer
    let steps: Int
    let schema = DocumentSchema.standard
    let editor = RandomEditor()
    var rng: SplitMix64
    var replicas: [Replica] = []
    /// Every update a replica produced itself, in the order produced (a causal order).
    var log: [(from: Int, update: [UInt8])] = []
    /// Per replica: log entries it has (Accord: applied or own; pycrdt: own).
    var has: [Set<Int>] = []
    /// Per pycrdt replica: the next log entry to deliver in order.
    var cursor: [Int] = []
    var trace: [String] = []
    var subscriptions: [Subscription] = []
    var peerDocs: [String] = []
    /// What each Accord replica was given, in order: enough to replay it alone and shrink
    /// a failure.
    enum Input {
        case edit(EditOperation)
        case apply([UInt8])
    }
    var history: [Int: [Input]] = [:]
    /// Trace every replica's root text after each step (for replays).
    var tracesTexts = false

    init(seed: UInt64, peer: PycrdtPeer, steps: Int) {
        self.seed = seed
        self.peer = peer
        self.steps = steps
        rng = SplitMix64(seed: seed)
    }

    func execute() throws {
        try setUp()
        for _ in 0..<steps {
            try step()
            if tracesTexts { try traceTexts() }
        }
        try exchangeEverything()
        try compare()
    }

    private func setUp() throws {
        // 1 to 3 Accord and 1 or 2 pycrdt replicas, interleaved at random.
        let kinds = (Array(repeating: true, count: Int.random(in: 1...3, using: &rng))
            + Array(repeating: false, count: Int.random(in: 1...2, using: &rng))).shuffled(using: &rng)
        var ids = Set<ClientID>()
        for (i, isAccord) in kinds.enumerated() {
            var id: ClientID
            repeat { id = ClientID(UInt32.random(in: 1 ... .max, using: &rng)) } while !ids.insert(id).inserted
            if isAccord {
                // A quarter of the seeds keep deleted content on the Accord side.
                let doc = Doc(clientID: id, gc: seed % 4 != 3)
                subscriptions.append(doc.onUpdate { [unowned self] update, origin in
                    guard origin != Self.remote else { return }
                    self.has[i].insert(self.log.count)
                    self.log.append((i, update))
                })
                replicas.append(.accord(doc))
            } else {
                let name = "s\(seed)-r\(i)"
                try peer.newDoc(name, clientID: id)
                peerDocs.append(name)
                replicas.append(.pycrdt(name))
            }
            has.append([])
            cursor.append(0)
            trace.append("replica \(i): \(isAccord ? "accord" : "pycrdt") client \(id)\(isAccord && seed % 4 == 3 ? ", gc off" : "")")
        }
    }

    func dropPeerDocs() {
        for name in peerDocs { try? peer.dropDoc(name) }
        subscriptions.forEach { $0.cancel() }
    }

    private func step() throws {
        let r = Int.random(in: 0..<replicas.count, using: &rng)
        let roll = Int.random(in: 0..<100, using: &rng)
        if roll < 55 {
            try edit(r)
        } else if roll < 85 {
            try deliverSome(to: r)
        } else {
            let s = Int.random(in: 0..<replicas.count, using: &rng)
            if s != r { try sync(from: s, to: r) }
        }
    }

    // MARK: Edits

    private func edit(_ r: Int) throws {
        switch replicas[r] {
        case .accord(let doc):
            let op = editor.nextOperation(view: try schema.editView(of: doc), using: &rng)
            trace.append("\(r) accord: \(op)")
            if tracesTexts { trace.append("    state before: \(Hex.encode(doc.encodeStateAsUpdate()))") }
            history[r, default: []].append(.edit(op))
            try doc.perform(op)
        case .pycrdt(let name):
            let json = try peer.json(name, schema: schema)
            var view: [String: AnyValue] = [:]
            for root in schema.roots {
                let v = json.objectValue?[root.name] ?? .null
                view[root.name] = root.kind == .text ? (v.objectValue?["string"] ?? "") : v
            }
            let op = editor.nextOperation(view: view, using: &rng)
            trace.append("\(r) pycrdt: \(op)")
            let update = try peer.perform(op, on: name)
            if update != [0, 0] {
                has[r].insert(log.count)
                log.append((r, update))
            }
        }
    }

    // MARK: Delivery

    /// A few log entries: to Accord in random order with duplicates, to pycrdt in order.
    private func deliverSome(to r: Int) throws {
        switch replicas[r] {
        case .accord(let doc):
            let missing = log.indices.filter { !has[r].contains($0) }
            var batch = Array(missing.shuffled(using: &rng).prefix(Int.random(in: 1...4, using: &rng)))
            if rng.chance(0.3), let old = has[r].randomElement(using: &rng) { batch.append(old) }
            batch.shuffle(using: &rng)
            for i in batch { try applyToAccord(doc, r, i) }
        case .pycrdt(let name):
            let end = min(log.count, cursor[r] + Int.random(in: 1...4, using: &rng))
            try deliverInOrder(to: name, r, upTo: end)
        }
    }

    private func applyToAccord(_ doc: Doc, _ r: Int, _ i: Int) throws {
        trace.append("\(r) <- log[\(i)] from \(log[i].from)")
        history[r, default: []].append(.apply(log[i].update))
        try doc.applyUpdate(log[i].update, origin: Self.remote)
        has[r].insert(i)
    }

    private func deliverInOrder(to name: String, _ r: Int, upTo end: Int) throws {
        guard cursor[r] < end else { return }
        trace.append("\(r) <- log[\(cursor[r])..<\(end)] in order")
        while cursor[r] < end {
            let i = cursor[r]
            if log[i].from != r { try peer.applyUpdate(log[i].update, to: name) }
            cursor[r] += 1
        }
    }

    /// `r` asks `s` for what it lacks (state-vector diff). A diff from an Accord replica
    /// with pending updates could lack dependencies, so pycrdt does not take it.
    private func sync(from s: Int, to r: Int) throws {
        let sv: [UInt8]
        switch replicas[r] {
        case .accord(let doc): sv = doc.encodeStateVector()
        case .pycrdt(let name): sv = try peer.encodeStateVector(name)
        }
        let update: [UInt8]
        switch replicas[s] {
        case .accord(let doc):
            if case .pycrdt = replicas[r], doc.hasPendingUpdates { return }
            update = try doc.encodeStateAsUpdate(from: sv)
        case .pycrdt(let name):
            update = try peer.encodeStateAsUpdate(name, from: sv)
        }
        trace.append("\(r) <- sync from \(s) (\(update.count) bytes)")
        switch replicas[r] {
        case .accord(let doc):
            history[r, default: []].append(.apply(update))
            try doc.applyUpdate(update, origin: Self.remote)
        case .pycrdt(let name): try peer.applyUpdate(update, to: name)
        }
    }

    /// Everything to everyone: each Accord replica gets all it lacks (plus duplicates)
    /// shuffled, in one pass, and must then have nothing pending; pycrdt replicas get the
    /// rest of the log in order. Repeated while Accord's formatting clean-ups add updates.
    private func exchangeEverything() throws {
        trace.append("final exchange")
        for _ in 0..<8 {
            let before = log.count
            for r in replicas.indices.shuffled(using: &rng) {
                switch replicas[r] {
                case .accord(let doc):
                    var batch = log.indices.filter { !has[r].contains($0) }
                    batch += has[r].filter { _ in rng.chance(0.2) }
                    batch.shuffle(using: &rng)
                    for i in batch { try applyToAccord(doc, r, i) }
                    if doc.hasPendingUpdates {
                        throw Mismatch(description: "replica \(r) (accord) still has pending updates after receiving every update once")
                    }
                case .pycrdt(let name):
                    try deliverInOrder(to: name, r, upTo: log.count)
                }
            }
            if log.count == before { return }
        }
        throw Mismatch(description: "formatting clean-ups kept producing updates")
    }

    private func traceTexts() throws {
        for r in replicas.indices {
            let s: String
            switch replicas[r] {
            case .accord(let doc): s = try doc.getText("t").string
            case .pycrdt(let name): s = try peer.json(name, schema: schema).objectValue?["t"]?.objectValue?["string"]?.stringValue ?? "?"
            }
            trace.append("    t@\(r) = \(AnyValue.string(s).jsonText) \(s.utf16.count) units")
        }
    }

    // MARK: Comparison

    private func state(_ r: Int) throws -> (json: AnyValue, sv: StateVector) {
        switch replicas[r] {
        case .accord(let doc): (try schema.comparableJSON(of: doc), doc.stateVector)
        case .pycrdt(let name): (schema.normalizedPeerJSON(try peer.json(name, schema: schema)), try peer.stateVector(name))
        }
    }

    private func kind(_ r: Int) -> String {
        if case .accord = replicas[r] { "accord" } else { "pycrdt" }
    }

    private func compare() throws {
        let (reference, referenceSV) = try state(0)
        for r in replicas.indices.dropFirst() {
            let (json, sv) = try state(r)
            if let d = LooseJSON.firstDifference(json, reference) {
                throw Mismatch(description: "replica \(r) (\(kind(r))) differs from replica 0 (\(kind(0))): \(d)")
            }
            if sv != referenceSV {
                throw Mismatch(description: "replica \(r) (\(kind(r))) state vector \(sv) vs replica 0 (\(kind(0))) \(referenceSV)")
            }
        }
        // Full states cross engines: each loads into a fresh replica of the other engine.
        for r in replicas.indices {
            switch replicas[r] {
            case .accord(let doc):
                let name = "s\(seed)-load\(r)"
                try peer.newDoc(name, clientID: 1)
                peerDocs.append(name)
                try peer.applyUpdate(doc.encodeStateAsUpdate(), to: name)
                let json = schema.normalizedPeerJSON(try peer.json(name, schema: schema))
                if let d = LooseJSON.firstDifference(json, reference) {
                    throw Mismatch(description: "replica \(r)'s full state loaded into pycrdt differs: \(d)")
                }
            case .pycrdt(let name):
                let fresh = Doc(clientID: 1)
                try fresh.applyUpdate(try peer.encodeStateAsUpdate(name))
                if let d = LooseJSON.firstDifference(try schema.comparableJSON(of: fresh), reference) {
                    throw Mismatch(description: "replica \(r)'s full state (pycrdt) loaded into Accord differs: \(d)")
                }
                if fresh.stateVector != referenceSV {
                    throw Mismatch(description: "replica \(r)'s full state (pycrdt) loaded into Accord: state vector \(fresh.stateVector) vs \(referenceSV)")
                }
            }
        }
    }
}
