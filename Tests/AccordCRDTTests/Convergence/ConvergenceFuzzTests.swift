import AccordCRDT
import AccordTesting
import Testing

/// Five Accord replicas edit at random while the network reorders, duplicates, drops
/// (and later redelivers) and partitions their messages; after healing, all converge.
/// Along the way the update algebra holds: merging commutes, applying twice changes
/// nothing, `mergeUpdates` of every update equals the replicas' state, and decoding then
/// encoding an update gives the same bytes.
///
/// `ACCORD_SEED=<n>` replays one seed with a full trace; `ACCORD_SOAK=1` runs 1,000 seeds
/// of 600 steps (about 20 minutes on two cores).
@Suite struct ConvergenceFuzzTests {
    static let seeds = FuzzSeeds(standard: 100, soak: 1_000)
    static let chunkCount = 4
    static var steps: Int { seeds.isSoak ? 600 : 200 }

    @Test(arguments: 0..<chunkCount)
    func replicasConvergeUnderHostileDelivery(chunk: Int) throws {
        var failures = 0
        for seed in Self.seeds.chunk(chunk, of: Self.chunkCount) {
            var options = ReplicaSimulator.Options()
            options.gc = seed % 5 != 4  // a fifth of the runs keep deleted content
            let sim = ReplicaSimulator(seed: seed, options: options)
            sim.recordsTrace = Self.seeds.isReplay
            do {
                try sim.run(steps: Self.steps / 2)
                try Self.checkAlgebra(sim, seed: seed)
                try sim.run(steps: Self.steps / 2)
                try sim.quiesce()
                if let d = try sim.divergence() { throw Failure("diverged: \(d)") }
                try Self.checkMergedUpdates(sim)
            } catch {
                failures += 1
                let full = Self.seeds.isReplay ? FuzzSeeds.writeTrace(sim.trace, name: "convergence-seed-\(seed)") : nil
                Issue.record("""
                    seed \(seed): \(error)
                    \(FuzzSeeds.replayHint(seed: seed, filter: "ConvergenceFuzzTests"))\(full.map { "\nfull trace: \($0)" } ?? "")
                    """)
                if failures >= 3 { break }
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Merge algebra on the replicas' current (diverged) states and on the updates so far.
    static func checkAlgebra(_ sim: ReplicaSimulator, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed ^ 0xA1)
        let schema = sim.schema
        let states = sim.docs.map { $0.encodeStateAsUpdate() }

        // Encode then decode is the identity, for full states and for every update.
        for (i, bytes) in states.enumerated() {
            let again = try DecodedUpdate.decode(bytes).encode()
            if again != bytes { throw Failure("replica \(i): decode+encode changed its state update\n\(Hex.encode(bytes))\n\(Hex.encode(again))") }
        }
        for (i, u) in sim.updates.enumerated() where try DecodedUpdate.decode(u).encode() != u {
            throw Failure("update \(i): decode+encode changed it: \(Hex.encode(u))")
        }

        // A then B equals B then A (states of two replicas).
        let i = Int.random(in: 0..<states.count, using: &rng)
        let j = (i + Int.random(in: 1..<states.count, using: &rng)) % states.count
        let ab = Doc(clientID: 1, gc: sim.options.gc), ba = Doc(clientID: 1, gc: sim.options.gc)
        try ab.applyUpdate(states[i])
        try ab.applyUpdate(states[j])
        try ba.applyUpdate(states[j])
        try ba.applyUpdate(states[i])
        try expectSame(ab, ba, schema, "replica \(i) then \(j)", "replica \(j) then \(i)")

        // Applying again changes nothing, not even the bytes.
        let before = ab.encodeStateAsUpdate()
        var emitted = 0
        let subscription = ab.onUpdate { _, _ in emitted += 1 }
        try ab.applyUpdate(states[i])
        try ab.applyUpdate(states[j])
        subscription.cancel()
        if ab.encodeStateAsUpdate() != before { throw Failure("re-applying replica \(i) and \(j)'s states changed the document's bytes") }
        if emitted != 0 { throw Failure("re-applying known states emitted \(emitted) updates") }

        // Any subset of the updates so far, in two random orders, gives the same document
        // (pending parts included).
        let subset = sim.updates.filter { _ in rng.chance(0.7) }
        let x = Doc(clientID: 1, gc: sim.options.gc), y = Doc(clientID: 1, gc: sim.options.gc)
        for u in subset.shuffled(using: &rng) { try x.applyUpdate(u) }
        for u in subset.shuffled(using: &rng) { try y.applyUpdate(u) }
        try expectSame(x, y, schema, "updates in one order", "in another")
        if x.hasPendingUpdates != y.hasPendingUpdates { throw Failure("pending differs between two orders of the same updates") }
        // mergeUpdates of that subset is the same document too.
        let merged = Doc(clientID: 1, gc: sim.options.gc)
        try merged.applyUpdate(try mergeUpdates(subset.shuffled(using: &rng)))
        try expectSame(merged, x, schema, "mergeUpdates(subset)", "the subset applied one by one")
    }

    /// After convergence: every update ever made, merged, is the replicas' document.
    static func checkMergedUpdates(_ sim: ReplicaSimulator) throws {
        let merged = Doc(clientID: 1, gc: sim.options.gc)
        try merged.applyUpdate(try mergeUpdates(sim.updates))
        try expectSame(merged, sim.docs[0], sim.schema, "mergeUpdates(all updates)", "replica 0")
        if merged.hasPendingUpdates { throw Failure("mergeUpdates(all updates) left something pending") }
    }

    static func expectSame(_ a: Doc, _ b: Doc, _ schema: DocumentSchema, _ aName: String, _ bName: String) throws {
        let ja = try schema.comparableJSON(of: a), jb = try schema.comparableJSON(of: b)
        if ja != jb { throw Failure("\(aName) differs from \(bName): \(LooseJSON.firstDifference(ja, jb) ?? "?")") }
        if a.stateVector != b.stateVector { throw Failure("\(aName) state vector \(a.stateVector) vs \(bName) \(b.stateVector)") }
    }
}
