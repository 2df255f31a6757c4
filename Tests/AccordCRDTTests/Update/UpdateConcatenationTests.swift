import AccordTesting
import Testing
@testable import AccordCRDT

/// `concatenateUpdates(base:appending:)` joins a log of insertions onto a snapshot byte
/// for byte, giving the document a replay gives, and declines (nil) whatever it cannot
/// join that way: deletions, gaps, overlaps, text a document would join, content that
/// would be pending, malformed bytes.
@Suite struct UpdateConcatenationTests {
    /// The update of every transaction `edit` makes on `doc`.
    static func updates(of doc: Doc, _ edit: () throws -> Void) throws -> [[UInt8]] {
        var updates: [[UInt8]] = []
        let subscription = doc.onUpdate { update, _ in updates.append(update) }
        defer { subscription.cancel() }
        try edit()
        return updates
    }

    /// `base` then `updates` applied one by one, as a store's replay does.
    static func replayed(base: [UInt8]?, _ updates: [[UInt8]]) throws -> Doc {
        let doc = Doc(clientID: 99)
        if let base { try doc.applyUpdate(base) }
        for update in updates { try doc.applyUpdate(update) }
        return doc
    }

    static func loaded(_ update: [UInt8]) throws -> Doc {
        let doc = Doc(clientID: 99)
        try doc.applyUpdate(update)
        return doc
    }

    /// The roots the tests write, as JSON, and the state vector.
    static func state(_ doc: Doc) throws -> String {
        let roots = [
            try doc.getMap("m").json, try doc.getArray("a").json, try doc.getText("t").json, try doc.getMap("records").json,
        ]
        return "\(roots) \(doc.stateVector) pending: \(doc.hasPendingUpdates)"
    }

    /// Batches of records (a map of maps, as AccordRecords writes them) saved one transaction each.
    static func recordBatches(_ doc: Doc, batches: Range<Int>, perBatch: Int = 20) throws -> [[UInt8]] {
        try updates(of: doc) {
            let records = try doc.getMap("records")
            for batch in batches {
                try doc.transact {
                    for n in 0..<perBatch {
                        let record = try records.setMap("r\(batch * perBatch + n)")
                        try record.set("title", .string("Task \(n) é ✓"))
                        try record.set("priority", .int(Int64(n % 5)))
                        try record.setMap("tags").set("urgent", .bool(true))
                    }
                }
            }
        }
    }

    @Test func batchesOfNewRecordsJoinIntoTheSnapshotAReplayWrites() throws {
        let source = Doc(clientID: 7)
        let first = try Self.recordBatches(source, batches: 0..<2)
        let base = try Self.replayed(base: nil, first).encodeStateAsUpdate()
        let log = try Self.recordBatches(source, batches: 2..<6)
        let joined = try #require(concatenateUpdates(base: base, appending: log))
        let replay = try Self.replayed(base: base, log)
        #expect(joined == replay.encodeStateAsUpdate())
        #expect(try Self.state(Self.loaded(joined)) == Self.state(source))
        // With no snapshot yet, the log alone.
        let all = first + log
        #expect(try concatenateUpdates(base: nil, appending: all) == Self.replayed(base: nil, all).encodeStateAsUpdate())
    }

    @Test func theBaseKeepsItsDeletionsAndLaterInsertionsGoOnTop() throws {
        let source = Doc(clientID: 3)
        let early = try Self.updates(of: source) {
            let text = try source.getText("t")
            try text.insert(0, "hello brave world")
            try text.delete(6, 6)
            try source.getMap("m").set("gone", .int(1))
            try source.getMap("m").delete("gone")
        }
        let base = try Self.replayed(base: nil, early).encodeStateAsUpdate()
        #expect(!(try DecodedUpdate.decode(base).deleteSet.isEmpty))
        let log = try Self.updates(of: source) {
            try source.getText("t").insert(0, ">> ")
            try source.getArray("a").append([.int(1), .string("two")])
            try source.getMap("m").set("kept", .bool(true))
        }
        let joined = try #require(concatenateUpdates(base: base, appending: log))
        #expect(try Self.state(Self.loaded(joined)) == Self.state(source))
        #expect(try Self.state(Self.loaded(joined)) == Self.state(Self.replayed(base: base, log)))
    }

    @Test func aDeletionAfterTheBaseIsLeftToAReplay() throws {
        let source = Doc(clientID: 3)
        let base = try Self.replayed(base: nil, Self.recordBatches(source, batches: 0..<1)).encodeStateAsUpdate()
        let log = try Self.updates(of: source) {
            try source.getMap("records").delete("r3")
        }
        #expect(concatenateUpdates(base: base, appending: log) == nil)
        // A field written again deletes the value it replaces.
        let overwrite = try Self.updates(of: source) {
            guard case .map(let record)? = try source.getMap("records").get("r4") else { throw Failure("no r4") }
            try record.set("priority", .int(9))
        }
        #expect(concatenateUpdates(base: base, appending: overwrite) == nil)
    }

    @Test func aMissingOrRepeatedUpdateIsLeftToAReplay() throws {
        let source = Doc(clientID: 5)
        let log = try Self.recordBatches(source, batches: 0..<3)
        #expect(concatenateUpdates(base: nil, appending: log) != nil)
        #expect(concatenateUpdates(base: nil, appending: [log[0], log[2]]) == nil, "a gap")
        #expect(concatenateUpdates(base: nil, appending: [log[1], log[2]]) == nil, "not from clock 0")
        #expect(concatenateUpdates(base: nil, appending: [log[0], log[1], log[1], log[2]]) == nil, "an overlap")
        let base = try Self.replayed(base: nil, Array(log.prefix(2))).encodeStateAsUpdate()
        #expect(concatenateUpdates(base: base, appending: [log[1], log[2]]) == nil, "the base holds the first again")
        // In another order the runs still join, in clock order.
        #expect(concatenateUpdates(base: nil, appending: [log[2], log[0], log[1]]) == concatenateUpdates(base: nil, appending: log))
    }

    @Test func textTypedInTwoTransactionsIsLeftToAReplay() throws {
        let source = Doc(clientID: 8)
        let typed = try Self.updates(of: source) {
            let text = try source.getText("t")
            try text.insert(0, "ab")
            try text.insert(2, "cd")
        }
        // A document holds "abcd" as one struct; the joined update would hold two.
        #expect(concatenateUpdates(base: nil, appending: typed) == nil)
        // Typed before what is there, it is two structs either way.
        let before = try Self.updates(of: source) { try source.getText("t").insert(0, "xy") }
        let base = try Self.replayed(base: nil, typed).encodeStateAsUpdate()
        let joined = try #require(concatenateUpdates(base: base, appending: before))
        #expect(try Self.loaded(joined).getText("t").string == "xyabcd")
    }

    @Test func contentThatWouldBePendingIsLeftToAReplay() throws {
        let a = Doc(clientID: 1), b = Doc(clientID: 2)
        let fromA = try Self.updates(of: a) { try a.getArray("a").append([.int(1), .int(2)]) }
        try b.applyUpdate(fromA[0])
        let fromB = try Self.updates(of: b) { try b.getArray("a").insert(1, [.string("b")]) }
        // B's item sits between A's: without A's update it would be pending.
        #expect(concatenateUpdates(base: nil, appending: fromB) == nil)
        let joined = try #require(concatenateUpdates(base: nil, appending: fromB + fromA))
        #expect(try Self.state(Self.loaded(joined)) == Self.state(b))
        #expect(try !Self.loaded(joined).hasPendingUpdates)
    }

    @Test func malformedUpdatesAndSkipsAreLeftToAReplay() throws {
        let source = Doc(clientID: 4)
        let log = try Self.recordBatches(source, batches: 0..<3, perBatch: 2)
        for cut in [1, log[1].count / 2, log[1].count - 1] {
            #expect(concatenateUpdates(base: nil, appending: [log[0], Array(log[1].prefix(cut))]) == nil, "cut at \(cut)")
        }
        #expect(concatenateUpdates(base: nil, appending: [log[0], log[1] + [0]]) == nil, "a trailing byte")
        #expect(concatenateUpdates(base: [0xff], appending: log) == nil, "a malformed base")
        // mergeUpdates writes a Skip over the missing middle update.
        let skipping = try mergeUpdates([log[0], log[2]])
        #expect(concatenateUpdates(base: nil, appending: [skipping, log[1]]) == nil)
        // An origin at or after its own item.
        var selfReference = try DecodedUpdate.decode(log[1])
        if case .item(var item) = selfReference.groups[0].structs[1] {
            item.origin = item.id
            selfReference.groups[0].structs[1] = .item(item)
        }
        #expect(concatenateUpdates(base: nil, appending: [log[0], selfReference.encode()]) == nil)
    }

    /// Bytes changed at random never crash the scan, and whatever it still joins is an
    /// update a document applies, to the state a replay of the same bytes gives.
    @Test func mutatedUpdatesNeverCrashAndWhatJoinsIsWhatAReplayBuilds() throws {
        let source = Doc(clientID: 6)
        let log = try Self.recordBatches(source, batches: 0..<3, perBatch: 3)
        let base = try Self.replayed(base: nil, [log[0]]).encodeStateAsUpdate()
        var rng = SplitMix64(seed: 0xC0CA7)
        var joined = 0
        for _ in 0..<2_000 {
            var mutated = log[1]
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<mutated.count, using: &rng)
                mutated[at] = UInt8.random(in: 0...255, using: &rng)
            }
            let joinedUpdate = concatenateUpdates(base: base, appending: [mutated, log[2]])
            #expect(updatesJoin(base: base, appending: [mutated, log[2]]) == (joinedUpdate != nil))
            guard let result = joinedUpdate else { continue }
            joined += 1
            let expected = try Self.replayed(base: base, [mutated, log[2]])
            #expect(try Self.state(Self.loaded(result)) == Self.state(expected), "\(Hex.encode(mutated))")
        }
        #expect(joined > 0)
    }

    @Test func randomHistoriesJoinToTheDocumentAReplayBuilds() throws {
        var joined = 0, declined = 0
        for seed in 0..<UInt64(100) {
            var rng = SplitMix64(seed: seed)
            var history = RandomInsertions(seed: seed)
            let log = try history.storeLog(steps: 60)
            for _ in 0..<6 {
                let cut = Int.random(in: 0..<log.count, using: &rng)
                let count = Int.random(in: 1...min(8, log.count - cut), using: &rng)
                let base = cut == 0 ? nil : try Self.replayed(base: nil, Array(log[..<cut])).encodeStateAsUpdate()
                let appended = Array(log[cut..<(cut + count)])
                let deletes = try appended.contains { try !DecodedUpdate.decode($0).deleteSet.isEmpty }
                let result = concatenateUpdates(base: base, appending: appended)
                // The check a store uses to keep a log unfolded says exactly what a join would do.
                #expect(updatesJoin(base: base, appending: appended) == (result != nil), "seed \(seed) cut \(cut)")
                guard let result else {
                    declined += 1
                    continue
                }
                joined += 1
                #expect(!deletes, "seed \(seed): joined updates that delete")
                let replay = try Self.replayed(base: base, appended)
                #expect(try Self.state(Self.loaded(result)) == Self.state(replay), "seed \(seed) cut \(cut) count \(count)")
            }
        }
        // Both ways are exercised.
        #expect(joined > 40)
        #expect(declined > 40)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// Three replicas that mostly insert (new map keys, nested maps, array elements, text)
/// and sometimes delete, syncing now and then: the log a store keeps for replica 0 (its
/// own transactions and what it received, in order).
struct RandomInsertions {
    var rng: SplitMix64
    let docs = (1...3).map { Doc(clientID: UInt64($0)) }
    var nextKey = 0

    init(seed: UInt64) { rng = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 11) }

    mutating func storeLog(steps: Int) throws -> [[UInt8]] {
        var log: [[UInt8]] = []
        let subscription = docs[0].onUpdate { update, _ in log.append(update) }
        defer { subscription.cancel() }
        for _ in 0..<steps {
            if rng.chance(0.2) {
                let from = Int.random(in: 0..<3, using: &rng)
                let to = (from + Int.random(in: 1...2, using: &rng)) % 3
                try docs[to].applyUpdate(try docs[from].encodeStateAsUpdate(from: docs[to].encodeStateVector()))
            } else {
                try edit(docs[Int.random(in: 0..<3, using: &rng)])
            }
        }
        return log
    }

    mutating func edit(_ doc: Doc) throws {
        try doc.transact {
            for _ in 0..<Int.random(in: 1...3, using: &rng) { try operation(doc) }
        }
    }

    mutating func key() -> String {
        nextKey += 1
        return "k\(nextKey)"
    }

    mutating func operation(_ doc: Doc) throws {
        let map = try doc.getMap("m"), array = try doc.getArray("a"), text = try doc.getText("t")
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1: try map.set(key(), .string("v\(nextKey) ü"))
        case 2:
            let nested = try map.setMap(key())
            try nested.set("n", .int(Int64(nextKey)))
        case 3:
            let nestedMaps = map.entries.compactMap { entry -> YMap? in
                if case .map(let m) = entry.value { return m } else { return nil }
            }
            if let nested = nestedMaps.randomElement(using: &rng) { try nested.set(key(), .bool(true)) }
        case 4, 5: try array.insert(Int.random(in: 0...array.count, using: &rng), [.int(Int64(nextKey)), .null])
        case 6, 7:
            // At a character boundary (an emoji is two UTF-16 units).
            let at = text.utf16Offset(characterOffset: Int.random(in: 0...text.string.count, using: &rng))
            try text.insert(at, ["ab", "ß", "😀x", "q"].randomElement(using: &rng)!)
        case 8:
            // A deletion now and then, and a key written again (which deletes its old value).
            let characters = Array(text.string)
            if !characters.isEmpty {
                let index = Int.random(in: 0..<characters.count, using: &rng)
                try text.delete(text.utf16Offset(characterOffset: index), characters[index].utf16.count)
            }
        default:
            if let existing = map.keys.randomElement(using: &rng) { try map.set(existing, .int(-1)) }
        }
    }
}
