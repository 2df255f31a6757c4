import AccordCRDT
import AccordTesting
import Testing

/// Hostile bytes fed to `Doc.applyUpdate` on a document that already has content
/// (local edits, a golden vector, structs and deletes pending): mutations of the golden
/// vector updates (every truncation, byte flips, inflated varints), random bytes, deeply
/// nested values and absurd counts. Each input either applies, leaving a usable
/// document, or throws `MALFORMED_UPDATE` and leaves the document byte-identical
/// (`encodeStateAsUpdate()` and the state vector). Nothing may crash.
///
/// `ACCORD_SOAK=1` tries every mask and varint size at every position and 100 times the
/// random inputs (about 5 minutes); `ACCORD_SEED=<n>` picks the random inputs' seed.
@Suite struct MalformedUpdateFuzzTests {
    static let seeds = FuzzSeeds(standard: 1, soak: 100)

    // MARK: Corpus

    /// The document mutations are applied to, as one update.
    static let base: [UInt8] = {
        let doc = Doc(clientID: 4242)
        var rng = SplitMix64(seed: 7)
        let editor = RandomEditor()
        for _ in 0..<20 {
            let op = editor.nextOperation(view: try! editor.schema.editView(of: doc), using: &rng)
            try! doc.perform(op)
        }
        try! doc.applyUpdate(Hex.decode(SharedFixtures.vectorCase("nested_types_all")["update_v1_hex"] as! String))
        // Something pending: the second of two edits by another replica, and its delete.
        let other = Doc(clientID: 31_337)
        var updates: [[UInt8]] = []
        let s = other.onUpdate { u, _ in updates.append(u) }
        try! other.getText("t").insert(0, "pending")
        try! other.getText("t").insert(7, "!")
        try! other.getText("t").delete(0, 3)
        s.cancel()
        try! doc.applyUpdate(updates[1])
        try! doc.applyUpdate(updates[2])
        precondition(doc.hasPendingUpdates)
        return doc.encodeStateAsUpdate()
    }()

    /// Every update in the golden vectors (113 updates, 2.7 KB).
    static let corpus: [(name: String, bytes: [UInt8])] = {
        var out: [(String, [UInt8])] = []
        for c in SharedFixtures.cases {
            let id = c["id"] as! String
            if let hex = c["update_v1_hex"] as? String { out.append((id, Hex.decode(hex))) }
            for (i, u) in ((c["incremental_updates"] as? [[String: Any]]) ?? []).enumerated() {
                out.append(("\(id) incremental \(i)", Hex.decode(u["hex"] as! String)))
            }
            for (i, hex) in ((c["inputs_hex"] as? [String]) ?? []).enumerated() { out.append(("\(id) input \(i)", Hex.decode(hex))) }
            for key in ["merged_hex", "merged_with_gap_hex"] {
                if let hex = c[key] as? String { out.append(("\(id) \(key)", Hex.decode(hex))) }
            }
        }
        return out
    }()

    // MARK: Mutations of the corpus

    @Test func everyTruncation() throws {
        var target = Target()
        for (name, bytes) in Self.corpus + [("base", Self.base)] {
            for n in 0..<bytes.count { target.feed(Array(bytes[..<n]), "\(name) truncated to \(n)") }
        }
        target.finish(expectingRejections: true)
    }

    /// Every byte flipped: one seeded mask per position, every mask with ACCORD_SOAK=1.
    @Test func byteFlips() throws {
        let masks: [UInt8] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFF]
        var rng = SplitMix64(seed: 11)
        var target = Target()
        for (name, bytes) in Self.corpus {
            for i in bytes.indices {
                for mask in Self.seeds.isSoak ? masks : [masks.randomElement(using: &rng)!] {
                    var m = bytes
                    m[i] ^= mask
                    target.feed(m, "\(name) byte \(i) ^ \(mask)")
                }
            }
        }
        target.finish(expectingRejections: true)
    }

    /// Each byte in turn replaced by a large varint, so that counts, lengths, clocks and
    /// clients all become huge somewhere: one seeded size per position, all with
    /// ACCORD_SOAK=1.
    @Test func inflatedVarints() throws {
        let big: [[UInt8]] = [
            [0xFF, 0xFF, 0xFF, 0xFF, 0x0F],  // 2^32 - 1
            [0x80, 0x80, 0x80, 0x80, 0x10],  // 2^32
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],  // 2^53 - 1
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // 2^64 - 1
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // too long for 64 bits
        ]
        var rng = SplitMix64(seed: 13)
        var target = Target()
        for (name, bytes) in Self.corpus {
            for i in bytes.indices {
                let sizes = Self.seeds.isSoak ? Array(big.indices) : [Int.random(in: 0..<big.count, using: &rng)]
                for k in sizes {
                    let varint = big[k]
                    target.feed(Array(bytes[..<i]) + varint + Array(bytes[(i + 1)...]), "\(name) byte \(i) -> varint \(k)")
                }
            }
        }
        target.finish(expectingRejections: true)
    }

    /// Random bytes, and random tails after valid headers.
    @Test func randomBytes() throws {
        var rng = SplitMix64(seed: Self.seeds.seeds.first ?? 0)
        var target = Target()
        let count = 2_000 * max(1, Self.seeds.seeds.count)
        for i in 0..<count {
            let length = Int.random(in: 0...64, using: &rng)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if i % 2 == 1, let (_, valid) = Self.corpus.randomElement(using: &rng) {
                bytes = Array(valid.prefix(Int.random(in: 0...valid.count, using: &rng))) + bytes
            }
            target.feed(bytes, "random input \(i): \(Hex.encode(bytes))")
        }
        target.finish(expectingRejections: true)
    }

    // MARK: Crafted inputs

    /// Values nested 10 to 100,000 deep, as Any content, JSON content, embeds, format
    /// values and sub-document options.
    @Test func deeplyNestedValues() throws {
        var target = Target()
        for depth in [10, 60, 100, 1_000, 100_000] {
            let arrays = [UInt8](repeating: 0, count: 0) + Array([[UInt8]](repeating: [117, 1], count: depth).joined()) + [126]
            let objects = Array([[UInt8]](repeating: [118, 1, 1, 0x61], count: depth).joined()) + [126]
            let mixed = Array((0..<depth).map { $0 % 2 == 0 ? [117, 1] : [118, 1, 1, 0x61] as [UInt8] }.joined()) + [120]
            for (kind, value) in [("arrays", arrays), ("objects", objects), ("mixed", mixed)] {
                target.feed(Crafted.update(content: 8, parent: .root("a"), body: [1] + value), "Any \(kind) \(depth) deep")
                target.feed(Crafted.update(content: 9, parent: .root("m"), sub: "d", body: Crafted.string("guid") + value),
                            "Doc options \(kind) \(depth) deep")
            }
            let json = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let jsonObjects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
            for (kind, text) in [("arrays", json), ("objects", jsonObjects)] {
                target.feed(Crafted.update(content: 2, parent: .root("a"), body: [1] + Crafted.string(text)), "JSON \(kind) \(depth) deep")
                target.feed(Crafted.update(content: 5, parent: .root("t"), body: Crafted.string(text)), "embed \(kind) \(depth) deep")
                target.feed(Crafted.update(content: 6, parent: .root("t"), body: Crafted.string("bold") + Crafted.string(text)),
                            "format \(kind) \(depth) deep")
            }
        }
        target.finish(expectingRejections: true)
    }

    /// Counts, lengths, clocks and clients far beyond what the bytes can hold.
    @Test func absurdCounts() throws {
        let huge: [[UInt8]] = [
            Crafted.varUInt(1 << 31), Crafted.varUInt(1 << 32), Crafted.varUInt((1 << 53) - 1), Crafted.varUInt(UInt64.max),
        ]
        var target = Target()
        for (k, n) in huge.enumerated() {
            // Group count, struct count, client, clock.
            target.feed(n + [0], "group count \(k)")
            target.feed([1] + n + [1, 0, 4, 1, 1, 0x61, 1, 0x78, 0], "struct count \(k)")
            target.feed([1, 1] + n + [0, 4, 1, 1, 0x61, 1, 0x78, 0], "client \(k)")
            target.feed([1, 1, 1] + n + [4, 1, 1, 0x61, 1, 0x78, 0], "clock \(k)")
            // Content lengths and counts.
            target.feed(Crafted.update(content: 4, parent: .root("t"), body: n + [0x61]), "string length \(k)")
            target.feed(Crafted.update(content: 8, parent: .root("a"), body: n + [126]), "Any count \(k)")
            target.feed(Crafted.update(content: 8, parent: .root("a"), body: [1, 117] + n + [126]), "Any array size \(k)")
            target.feed(Crafted.update(content: 8, parent: .root("a"), body: [1, 118] + n + [1, 0x61, 126]), "Any object size \(k)")
            target.feed(Crafted.update(content: 8, parent: .root("a"), body: [1, 116] + n + [0]), "Any bytes length \(k)")
            target.feed(Crafted.update(content: 3, parent: .root("a"), body: n + [0]), "binary length \(k)")
            target.feed(Crafted.update(content: 2, parent: .root("a"), body: n + [1, 0x31]), "JSON count \(k)")
            target.feed(Crafted.update(content: 1, parent: .root("a"), body: n), "Deleted length \(k)")
            target.feed(Crafted.update(content: 7, parent: .root("m"), sub: "x", body: [3] + n + [0x61]), "XML element name length \(k)")
            target.feed(Crafted.update(content: 7, parent: .root("m"), sub: "x", body: n), "type ref \(k)")
            target.feed([1, 1, 1, 0, 0] + n + [0], "GC length \(k)")
            target.feed([1, 1, 1, 0, 10] + n + [0], "Skip length \(k)")
            target.feed([1, 1, 1, 0, 0x24, 1] + n + [0x61], "root name length \(k)")
            // Delete sets.
            target.feed([0] + n, "delete set client count \(k)")
            target.feed([0, 1, 1] + n + [0, 1], "delete range count \(k)")
            target.feed([0, 1, 1, 1] + n + [1], "delete clock \(k)")
            target.feed([0, 1, 1, 1, 0] + n, "delete length \(k)")
            target.feed([0, 1, 0x92, 0x21, 1] + n + n, "delete clock and length \(k) on the base's client")
        }
        // A clock at 2^32 - 1 with a 2-unit string overflows 32-bit clocks.
        target.feed([1, 1, 1] + Crafted.varUInt((1 << 32) - 1) + [4, 1, 1, 0x74, 2, 0x61, 0x62, 0], "clock overflow")
        // Origins that point at or past themselves, and items with no parent at all.
        target.feed([1, 1, 1, 5, 0x84, 1, 5, 1, 0x61, 0], "origin at itself")
        target.feed([1, 1, 1, 5, 0x44, 1, 9, 1, 0x61, 0], "right origin after itself")
        target.feed([1, 1, 1, 5, 0x04, 0, 1, 7, 1, 0x61, 0], "parent after itself")
        target.finish(expectingRejections: true)
    }
}

/// A document at ``MalformedUpdateFuzzTests/base`` that takes hostile inputs one by one.
struct Target {
    /// The base document's bytes and state vector (the same after every reset).
    static let snapshot: (update: [UInt8], stateVector: [UInt8]) = {
        let doc = Doc(clientID: 999)
        try! doc.applyUpdate(MalformedUpdateFuzzTests.base)
        return (doc.encodeStateAsUpdate(), doc.encodeStateVector())
    }()

    var doc = Doc(clientID: 999)
    var applied = 0
    var rejected = 0
    var problems: [String] = []

    init() { reset() }

    mutating func reset() {
        doc = Doc(clientID: 999)
        try! doc.applyUpdate(MalformedUpdateFuzzTests.base)
    }

    mutating func feed(_ bytes: [UInt8], _ label: @autoclosure () -> String) {
        guard problems.count < 10 else { return }
        do {
            try doc.applyUpdate(bytes)
            applied += 1
            // Accepted: the document must still encode, decode and load elsewhere.
            let state = doc.encodeStateAsUpdate()
            do {
                _ = try DecodedUpdate.decode(state)
                try Doc(clientID: 1).applyUpdate(state)
                _ = try? doc.getText("t").delta
                _ = try? doc.getMap("m").json
                _ = try? doc.getArray("a").json
            } catch {
                problems.append("\(label()): accepted, but the document's state no longer loads: \(error)")
            }
            reset()
        } catch {
            rejected += 1
            if error.code != .malformedUpdate {
                problems.append("\(label()): threw \(error.code), not MALFORMED_UPDATE")
            }
            if doc.encodeStateAsUpdate() != Self.snapshot.update || doc.encodeStateVector() != Self.snapshot.stateVector {
                problems.append("\(label()): threw \(error) but changed the document")
                reset()
            }
        }
    }

    func finish(expectingRejections: Bool) {
        for p in problems { Issue.record(Comment(rawValue: p)) }
        if expectingRejections { #expect(rejected > 0, "no input was rejected (\(applied) applied)") }
    }
}

/// Hand-made update bytes.
enum Crafted {
    static func varUInt(_ n: UInt64) -> [UInt8] {
        var w = ByteWriter()
        w.writeVarUInt(n)
        return w.bytes
    }

    static func string(_ s: String) -> [UInt8] {
        var w = ByteWriter()
        w.writeVarString(s)
        return w.bytes
    }

    /// One group, one item of content `ref` from client 77 at clock 0 with `parent`
    /// (and map key `sub`), then `body` (the content), then an empty delete set.
    static func update(content ref: UInt8, parent: StructParent, sub: String? = nil, body: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.writeVarUInt(1)
        w.writeVarUInt(1)
        w.writeVarUInt(77)
        w.writeVarUInt(0)
        w.writeUInt8(ref | (sub != nil ? 0x20 : 0))
        switch parent {
        case .root(let name):
            w.writeVarUInt(1)
            w.writeVarString(name)
        case .item(let id):
            w.writeVarUInt(0)
            w.writeVarUInt(id.client)
            w.writeVarUInt(id.clock)
        }
        if let sub { w.writeVarString(sub) }
        w.writeRaw(body)
        w.writeVarUInt(0)
        return w.bytes
    }
}
