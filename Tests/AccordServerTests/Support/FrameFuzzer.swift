import AccordCRDT
import AccordStore
import AccordTesting
@testable import AccordServer

/// Hostile WebSocket messages for one sync connection, drawn from a seeded generator.
///
/// It starts from valid frames of every kind a client can send (sync step 1 and 2 and
/// updates carrying real Yjs updates from a `Doc` edited by ``RandomEditor``, awareness,
/// query awareness, auth, Accord update, broadcast, hello, ack and error, an unknown
/// type), framed for the endpoint (multiplexed envelopes on `/v1/sync`), and mutates
/// them: truncated, bytes flipped, a varint replaced by a huge one, garbage inserted,
/// spliced with another frame, padded past the frame limit, or replaced by random bytes
/// or a hand-made hostile frame (deep JSON, absurd counts, deeply nested types, ids
/// above 32 bits, bad envelopes).
struct FrameFuzzer {
    enum Mutation: String, CaseIterable, Sendable, Comparable {
        case intact, truncated, flipped, inflatedLength, garbageInserted, spliced, oversized, randomBytes, hostile

        static func < (a: Mutation, b: Mutation) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    let endpoint: SyncEndpoint
    let maxFrameBytes: Int
    /// Valid frames, framed for the endpoint.
    let templates: [[UInt8]]
    /// Hand-made frames that are well framed but hostile in content.
    let hostile: [[UInt8]]
    private var rng: SplitMix64

    /// `documents` are the ids the frames name (on `/v1/sync/{id}` only the first);
    /// awareness entries use `awarenessClients`.
    init(
        endpoint: SyncEndpoint, documents: [DocumentID], awarenessClients: [ClientID], maxFrameBytes: Int, seed: UInt64
    ) throws {
        self.endpoint = endpoint
        self.maxFrameBytes = maxFrameBytes
        rng = SplitMix64(seed: seed)
        var templates: [[UInt8]] = []
        var hostile: [[UInt8]] = []
        for document in documents {
            let frames = try Self.validFrames(for: document, awarenessClients: awarenessClients, using: &rng)
            templates += frames.map { endpoint.encode($0, document: document) }
            hostile += try Self.hostileFrames(for: document, maxFrameBytes: maxFrameBytes).map {
                endpoint.encode($0, document: document)
            }
        }
        if case .multiplexed = endpoint {
            // A client's connection-wide error (allowed), and envelopes the server must refuse.
            let error = try AccordMessage.error(code: "CLIENT_ERROR", message: "client side", documentID: nil).frame()
            templates.append(endpoint.encode(error, document: nil))
            hostile.append(endpoint.encode(.queryAwareness, document: nil))
            hostile.append(Self.envelope(String(repeating: "x", count: 300), ProtocolFrame.queryAwareness.encode()))
            hostile.append(Self.envelope("bad\u{7}id", ProtocolFrame.queryAwareness.encode()))
            hostile.append([3, 0x66, 0xFF, 0xFE] + ProtocolFrame.queryAwareness.encode())  // invalid UTF-8 id
            let elsewhere = try AccordMessage.broadcast(documentID: "elsewhere", topic: "t", payload: "1", sender: nil)
            hostile.append(Self.envelope(documents[0].rawValue, try elsewhere.encode()))  // ids disagree
        }
        self.templates = templates
        self.hostile = hostile
    }

    /// The next message and how it was made.
    mutating func next() -> (mutation: Mutation, bytes: [UInt8]) {
        let roll = Int.random(in: 0..<100, using: &rng)
        let mutation: Mutation = switch roll {
        case ..<12: .intact
        case ..<27: .truncated
        case ..<42: .flipped
        case ..<55: .inflatedLength
        case ..<66: .garbageInserted
        case ..<74: .spliced
        case ..<78: .oversized
        case ..<90: .randomBytes
        default: .hostile
        }
        return (mutation, mutate(templates.randomElement(using: &rng)!, mutation))
    }

    private mutating func mutate(_ frame: [UInt8], _ mutation: Mutation) -> [UInt8] {
        switch mutation {
        case .intact:
            return frame
        case .truncated:
            return Array(frame.prefix(Int.random(in: 0..<frame.count, using: &rng)))
        case .flipped:
            var bytes = frame
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes[Int.random(in: bytes.indices, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            }
            return bytes
        case .inflatedLength:
            // Replace the varint starting at a random offset (usually a type, count or
            // length) with a huge value, or the rest of the input plus a little.
            let start = Int.random(in: frame.indices, using: &rng)
            var end = start
            while end < frame.count - 1, frame[end] & 0x80 != 0 { end += 1 }
            let rest = UInt64(frame.count - start)
            let values: [UInt64] = [
                rest + 1, rest + UInt64.random(in: 2...1000, using: &rng), 1 << 31, 1 << 32 - 1, 1 << 32,
                1 << 53 - 1, 1 << 53, 1 << 63, .max,
            ]
            var w = ByteWriter()
            if rng.chance(0.1) {
                w.writeRaw([UInt8](repeating: 0xFF, count: 11) + [0x01])  // longer than any UInt64
            } else {
                w.writeVarUInt(values.randomElement(using: &rng)!)
            }
            return Array(frame[..<start]) + w.bytes + Array(frame[(end + 1)...])
        case .garbageInserted:
            var bytes = frame
            let garbage = (0..<Int.random(in: 1...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            bytes.insert(contentsOf: garbage, at: Int.random(in: 0...bytes.count, using: &rng))
            return bytes
        case .spliced:
            let other = templates.randomElement(using: &rng)!
            if rng.chance(0.5) { return frame + other }
            return Array(frame.prefix(Int.random(in: 0...frame.count, using: &rng)))
                + Array(other.suffix(Int.random(in: 0...other.count, using: &rng)))
        case .oversized:
            // Past the limit, or right at it (which must still be read).
            let size = rng.chance(0.2) ? maxFrameBytes : maxFrameBytes + Int.random(in: 1...16_384, using: &rng)
            return frame + [UInt8](repeating: UInt8.random(in: 0...255, using: &rng), count: max(0, size - frame.count))
        case .randomBytes:
            var bytes = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Often a plausible start, so the decoder gets past the first byte.
            if rng.chance(0.5), !bytes.isEmpty { bytes[0] = [0, 1, 2, 3, 100].randomElement(using: &rng)! }
            if case .multiplexed = endpoint, rng.chance(0.5) { bytes = Array(frame.prefix(8)) + bytes }
            return bytes
        case .hostile:
            return hostile.randomElement(using: &rng)!
        }
    }

    // MARK: Frames

    /// Valid frames about `document`, with real updates from a randomly edited Doc.
    static func validFrames(
        for document: DocumentID, awarenessClients: [ClientID], using rng: inout SplitMix64
    ) throws -> [ProtocolFrame] {
        let doc = Doc(clientID: ClientID(UInt32.random(in: 1...UInt32.max, using: &rng)))
        var updates: [[UInt8]] = []
        let subscription = doc.onUpdate { update, _ in updates.append(update) }
        let editor = RandomEditor()
        for _ in 0..<16 {
            try doc.perform(editor.nextOperation(view: try editor.schema.editView(of: doc), using: &rng))
        }
        subscription.cancel()
        let id = document.rawValue
        var frames: [ProtocolFrame] = [
            .sync(.step1(stateVector: doc.encodeStateVector())),
            .sync(.step1(stateVector: Doc().encodeStateVector())),
            .sync(.step2(update: doc.encodeStateAsUpdate())),
            .sync(.step2(update: Doc().encodeStateAsUpdate())),
            .queryAwareness,
            .auth(.permissionDenied(reason: "clients do not send this")),
            .custom(type: 42, body: [1, 2, 3]),
            try AccordMessage.broadcast(documentID: id, topic: "cursor", payload: #"{"x":1,"y":[true,null,{"z":"é"}]}"#, sender: nil).frame(),
            try AccordMessage.hello(serverVersion: "client/1", maxFrameBytes: 1, heartbeatSeconds: 1).frame(),
            try AccordMessage.ack(documentID: id, through: 7).frame(),
            try AccordMessage.error(code: "CLIENT_ERROR", message: "client side", documentID: id).frame(),
        ]
        for (index, update) in updates.enumerated() {
            frames.append(.sync(.update(update)))
            frames.append(try AccordMessage.update(documentID: id, sequence: UInt64(index + 1), bytes: update).frame())
        }
        for clock in 1...3 as ClosedRange<UInt64> {
            let entries = awarenessClients.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)).map {
                AwarenessUpdate.Entry(
                    clientID: $0, clock: clock,
                    state: rng.chance(0.2) ? nil : .object(["user": .string("fuzz"), "cursor": .int(Int64(clock))]))
            }
            frames.append(.awareness(AwarenessUpdate(Array(entries)).encode()))
        }
        return frames
    }

    /// Well-framed messages with hostile content.
    static func hostileFrames(for document: DocumentID, maxFrameBytes: Int) throws -> [ProtocolFrame] {
        let id = document.rawValue
        let depth = maxFrameBytes / 4
        let deepJSON = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var frames: [ProtocolFrame] = []
        // Awareness: JSON nested far past the parser's bound; an absurd entry count;
        // client ids above 32 bits (the server's own id is 2^32); a clock past 2^53;
        // a state as large as the frame allows; thousands of entries.
        frames.append(.awareness(rawAwareness(count: 1, entries: [(77, 1, deepJSON)])))
        frames.append(.awareness(rawAwareness(count: UInt64(1) << 53 - 1, entries: [])))
        frames.append(.awareness(rawAwareness(count: 1, entries: [(78, UInt64(1) << 60, "{}")])))
        for client in [ClientID(1) << 32, ClientID(1) << 53, .max] {
            frames.append(.awareness(AwarenessUpdate([.init(clientID: client, clock: 1, state: .string("hi"))]).encode()))
        }
        let big = String(repeating: "a", count: maxFrameBytes - 64)
        frames.append(.awareness(AwarenessUpdate([.init(clientID: 79, clock: 1, state: .string(big))]).encode()))
        frames.append(.awareness(AwarenessUpdate((0..<2000).map { .init(clientID: 10_000 + $0, clock: 1, state: .bool(true)) })
            .encode()))
        // Sync: updates and state vectors claiming absurd counts, clients and clocks.
        for claim in [UInt64(1) << 32, UInt64(1) << 53, .max] {
            var w = ByteWriter()
            for value in [claim, claim, claim, 0] { w.writeVarUInt(value) }
            frames.append(.sync(.update(w.bytes)))
            frames.append(.sync(.step1(stateVector: w.bytes)))
        }
        var vector = ByteWriter()
        vector.writeVarUInt(3000 as UInt64)
        for client in 0..<3000 as Range<UInt64> {
            vector.writeVarUInt(client * 7919)
            vector.writeVarUInt(UInt64(1) << 40)
        }
        frames.append(.sync(.step1(stateVector: vector.bytes)))
        // A valid update nesting maps thousands deep, and one deleting the whole tree.
        let deep = Doc(clientID: 424_242)
        var updates: [[UInt8]] = []
        let subscription = deep.onUpdate { update, _ in updates.append(update) }
        try deep.transact {
            var map = try deep.getMap("nest")
            for _ in 0..<2000 { map = try map.setMap("k") }
            try map.set("leaf", .string("bottom"))
        }
        try deep.getMap("nest").delete("k")
        subscription.cancel()
        frames += updates.map { .sync(.update($0)) }
        // Accord: a broadcast whose payload nests too deep, the largest sequence.
        let broadcast = ByteWriter.accord(subtype: 4) { w in
            for field in [id, "t", deepJSON] { w.writeVarString(field) }
            w.writeVarUInt(0 as UInt64)  // no sender
        }
        frames.append(broadcast)
        frames.append(try AccordMessage.update(documentID: id, sequence: .max, bytes: [0, 0]).frame())
        frames.append(ByteWriter.accord(subtype: 99) { _ in })
        return frames
    }

    /// `vu(count) · (vu(clientID) · vu(clock) · vs(state))*`, written field by field so it
    /// can break the decoder's rules (a count the entries do not match, a clock too large).
    static func rawAwareness(count: UInt64, entries: [(client: UInt64, clock: UInt64, state: String)]) -> [UInt8] {
        var w = ByteWriter()
        w.writeVarUInt(count)
        for entry in entries {
            w.writeVarUInt(entry.client)
            w.writeVarUInt(entry.clock)
            w.writeVarString(entry.state)
        }
        return w.bytes
    }

    /// `vs(documentID) · frame`, written without the validating encoder.
    static func envelope(_ documentID: String, _ frame: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.writeVarString(documentID)
        w.writeRaw(frame)
        return w.bytes
    }
}

extension ByteWriter {
    /// An Accord frame written field by field, so it can break the rules the encoder checks.
    fileprivate static func accord(subtype: UInt64, _ fields: (inout ByteWriter) -> Void) -> ProtocolFrame {
        var w = ByteWriter()
        w.writeVarUInt(subtype)
        fields(&w)
        return .custom(type: AccordMessage.frameType, body: w.bytes)
    }
}
