import Foundation
import Testing
import AccordTesting
@testable import AccordCRDT

/// Seeded property tests over the golden updates: merge is order-insensitive and
/// idempotent, diffs never contain what the state vector already covers.
@Suite struct UpdatePropertyTests {
    struct UpdateSet: Sendable, CustomStringConvertible {
        var label: String
        var updates: [[UInt8]]
        var description: String { label }
    }

    static var sets: [UpdateSet] { UpdateVectors.updateSets.map { UpdateSet(label: $0.label, updates: $0.updates) } }

    /// The structs of an update per client, in clock order, Skips left out.
    static func structsByClient(_ u: DecodedUpdate) -> [ClientID: [UpdateStruct]] {
        var out: [ClientID: [UpdateStruct]] = [:]
        for g in u.groups { out[g.client, default: []].append(contentsOf: g.structs.filter { !$0.isSkip }) }
        return out
    }

    // MARK: merge

    @Test(arguments: sets)
    func mergeIsOrderInsensitive(_ set: UpdateSet) throws {
        let merged = try mergeUpdates(set.updates)
        var rng = SplitMix64(seed: 0xACC0_4D00 ^ UInt64(set.label.utf8.count))
        for _ in 0..<24 {
            let shuffled = set.updates.shuffled(using: &rng)
            #expect(try mergeUpdates(shuffled) == merged, "\(set.label) order \(shuffled.map { Hex.encode($0) })")
        }
        #expect(try mergeUpdates(set.updates.reversed()) == merged)
    }

    /// Merging in several steps gives the same update as merging at once.
    @Test(arguments: sets)
    func mergeIsAssociative(_ set: UpdateSet) throws {
        let merged = try mergeUpdates(set.updates)
        var rng = SplitMix64(seed: 0x5EED_0001 &+ UInt64(set.updates.count))
        for _ in 0..<12 {
            let cut = Int.random(in: 0...set.updates.count, using: &rng)
            let left = try mergeUpdates(Array(set.updates[..<cut]))
            let right = try mergeUpdates(Array(set.updates[cut...]))
            #expect(try mergeUpdates([left, right]) == merged, "\(set.label) cut at \(cut)")
        }
    }

    /// merge([u, u]) is Yjs's normal form n of u: merging n with itself, with u, or alone
    /// gives n again. (merge([u]) is u itself, byte for byte, as in Yjs; it equals n when u
    /// is already in Yjs's form, which the golden updates are except for Yrs number tags,
    /// the 0x20 bit without a key, and Yrs sub-document options.)
    @Test func mergeIsIdempotent() throws {
        var alreadyNormal = 0
        for g in UpdateVectors.allUpdates {
            let u = g.bytes
            let n = try mergeUpdates([u, u])
            #expect(try mergeUpdates([u, u, u]) == n, "\(g.label)")
            #expect(try mergeUpdates([n, n]) == n, "\(g.label)")
            #expect(try mergeUpdates([n]) == n, "\(g.label)")
            #expect(try mergeUpdates([u, n]) == n, "\(g.label)")
            #expect(try mergeUpdates([n, u]) == n, "\(g.label)")

            // Same structs and deletes as u, as Yjs rewrites them.
            let du = try DecodedUpdate.decode(u), dn = try DecodedUpdate.decode(n)
            #expect(Self.structsByClient(dn) == Self.structsByClient(du).mapValues { $0.map(\.yjsRewritten) }, "\(g.label)")
            var ds = du.deleteSet
            ds.normalize()
            #expect(dn.deleteSet == ds, "\(g.label)")

            if n == u { alreadyNormal += 1 } else { #expect(!Self.isYjsNormal(du, u), "\(g.label) should be unchanged by merge") }
        }
        #expect(alreadyNormal > 100)
    }

    /// Whether Yjs would write `u` back unchanged: numbers re-encode the same, no 0x20 bit
    /// without its key, no sub-document.
    static func isYjsNormal(_ d: DecodedUpdate, _ u: [UInt8]) -> Bool {
        if d.encode() != u { return false }
        for g in d.groups {
            for case .item(let item) in g.structs {
                if item.hasParentSub && item.parentSub == nil { return false }
                if case .doc = item.content { return false }
            }
        }
        return true
    }

    // MARK: diff

    /// Clocks per client from a state vector's bytes.
    static func sv(_ bytes: [UInt8]) throws -> StateVector { try StateVector.decode(bytes) }

    static func expectNothingBelow(_ diff: [UInt8], _ sv: StateVector, _ label: String) throws {
        let d = try DecodedUpdate.decode(diff)
        for g in d.groups {
            if let first = g.structs.first { #expect(!first.isSkip, "\(label): group starts with a Skip") }
            for s in g.structs {
                #expect(s.id.clock >= sv[s.id.client], "\(label): struct \(s.id) below state \(sv[s.id.client])")
            }
        }
    }

    @Test(arguments: sets)
    func diffAgainstAnIncludedUpdateHasNothingBelowIt(_ set: UpdateSet) throws {
        let merged = try mergeUpdates(set.updates)
        let full = try Self.sv(encodeStateVectorFromUpdate(merged))
        for (i, u) in set.updates.enumerated() {
            // The state vector of one included update, and of all updates up to it.
            let own = try encodeStateVectorFromUpdate(u)
            try Self.expectNothingBelow(try diffUpdate(merged, stateVector: own), try Self.sv(own), "\(set.label) [\(i)]")

            let prefix = try mergeUpdates(Array(set.updates[...i]))
            let prefixSV = try encodeStateVectorFromUpdate(prefix)
            let diff = try diffUpdate(merged, stateVector: prefixSV)
            try Self.expectNothingBelow(diff, try Self.sv(prefixSV), "\(set.label) prefix \(i)")
            // What the prefix lacks, added to it, brings it to the merged state.
            let caughtUp = try mergeUpdates([prefix, diff])
            #expect(try Self.sv(encodeStateVectorFromUpdate(caughtUp)) == full, "\(set.label) prefix \(i)")
            #expect(try DecodedUpdate.decode(caughtUp).deleteSet == DecodedUpdate.decode(merged).deleteSet)
        }
        // Against its own state the merged update has no structs left, only its deletes.
        let none = try DecodedUpdate.decode(try diffUpdate(merged, stateVector: encodeStateVectorFromUpdate(merged)))
        #expect(none.groups.isEmpty)
    }

    /// Random state vectors: each client's structs in the diff start exactly at the
    /// client's state (or its first clock) and continue without a gap to its end; two
    /// diffs in a row equal one diff against the larger state.
    @Test(arguments: sets)
    func diffAgainstRandomStateVectors(_ set: UpdateSet) throws {
        let merged = try mergeUpdates(set.updates)
        let dm = try DecodedUpdate.decode(merged)
        let bounds = Dictionary(uniqueKeysWithValues: dm.groups.map { ($0.client, ($0.structs.first!.id.clock, $0.structs.last!.end)) })
        var rng = SplitMix64(seed: 0xD1FF ^ UInt64(merged.count))
        func randomSV() -> StateVector {
            var sv = StateVector()
            for (client, (_, end)) in bounds where Bool.random(using: &rng) { sv[client] = Int.random(in: 0...(end + 1), using: &rng) }
            if Bool.random(using: &rng) { sv[0xFFFF_FF00] = 3 }  // unknown client: ignored
            return sv
        }
        for _ in 0..<16 {
            let a = randomSV(), b = randomSV()
            let diffA = try diffUpdate(merged, stateVector: a.encode())
            try Self.expectNothingBelow(diffA, a, set.label)
            let da = try DecodedUpdate.decode(diffA)
            #expect(da.deleteSet == dm.deleteSet)
            for (client, (start, end)) in bounds {
                let structs = da.groups.filter { $0.client == client }.flatMap(\.structs)
                if a[client] >= end {
                    #expect(structs.isEmpty)
                } else {
                    #expect(structs.first?.id.clock == max(a[client], start), "\(set.label) client \(client)")
                    #expect(structs.last?.end == end)
                    #expect(zip(structs, structs.dropFirst()).allSatisfy { $0.end == $1.id.clock })
                }
            }
            var joined = a
            for (client, clock) in b.clocks { joined[client] = max(joined[client], clock) }
            #expect(try diffUpdate(diffA, stateVector: b.encode()) == diffUpdate(merged, stateVector: joined.encode()))
        }
    }
}
