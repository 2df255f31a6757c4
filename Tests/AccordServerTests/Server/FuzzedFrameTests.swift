import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing
@testable import AccordServer

/// Malformed input from several connections at once, on both sync endpoints, while two
/// well-behaved clients keep editing one document. The server must stay up with bounded
/// memory, the good clients must converge with every edit and never see an error, and
/// the stored document must equal their state.
///
/// 10,000 frames by default, 100,000 with `ACCORD_SOAK=1`; `ACCORD_SEED=<n>` replays a
/// seed (printed with any failure).
@Suite(.timeLimit(.minutes(10)))
struct FuzzedFrameTests {
    static let seeds = FuzzSeeds(standard: 1, soak: 1)
    static let maxFrameBytes = 64 << 10
    static let good: DocumentID = "good"
    /// Awareness client ids of the two good clients.
    static let goodClients: [ClientID] = [5001, 5002]

    /// One fuzzing connection: where it connects and which documents its frames name.
    /// "rita" reads "good" and owns the "fuzz/…" documents (created on connect).
    struct Slot: Sendable {
        var index: Int
        /// `/v1/sync/{id}`, or nil for `/v1/sync`.
        var path: DocumentID?
        var documents: [DocumentID]

        static let all: [Slot] = [
            Slot(index: 0, path: good, documents: [good]),
            Slot(index: 1, path: good, documents: [good]),
            Slot(index: 2, path: "fuzz/2", documents: ["fuzz/2"]),
            Slot(index: 3, path: "fuzz/3", documents: ["fuzz/3"]),
        ] + (4..<8).map { Slot(index: $0, path: nil, documents: [DocumentID(rawValue: "fuzz/\($0)")!, good]) }

        var endpoint: SyncEndpoint { path.map { .document($0) } ?? .multiplexed }
        var awarenessClients: [ClientID] { (0..<6).map { ClientID(100_000 * (index + 1) + $0) } }
        /// The awareness entry each of the slot's connections sets first, so the
        /// answers to its queries can be told from relayed updates.
        var marker: ClientID { ClientID(900_000 + index) }
    }

    /// What the fuzzing connections sent and received.
    struct Tally: Sendable {
        var sent: [FrameFuzzer.Mutation: Int] = [:]
        var connections = 0
        var errors: [String: Int] = [:]
        var closes: [UInt16: Int] = [:]

        mutating func record(_ client: SyncTestClient) {
            connections += 1
            for code in client.errorCodes { errors[code, default: 0] += 1 }
            if let closed = client.closed { closes[closed.code, default: 0] += 1 }
        }

        mutating func add(_ other: Tally) {
            sent.merge(other.sent, uniquingKeysWith: +)
            connections += other.connections
            errors.merge(other.errors, uniquingKeysWith: +)
            closes.merge(other.closes, uniquingKeysWith: +)
        }

        var summary: String {
            let mutations = sent.keys.sorted().map { "\($0.rawValue) \(sent[$0]!)" }.joined(separator: ", ")
            let codes = errors.keys.sorted().map { "\($0) \(errors[$0]!)" }.joined(separator: ", ")
            let closeCodes = closes.keys.sorted().map { "\($0) \(closes[$0]!)" }.joined(separator: ", ")
            return "sent: \(mutations); connections \(connections); errors: \(codes); closes: \(closeCodes)"
        }
    }

    @Test func fuzzedFramesLeaveTheServerServingAndTheGoodClientsSyncing() async throws {
        let seed = Self.seeds.seeds[0]
        let total = Self.seeds.isSoak ? 100_000 : 10_000
        let context = "seed \(seed); \(FuzzSeeds.replayHint(seed: seed, filter: "FuzzedFrameTests"))"
        do {
            try await Self.run(seed: seed, total: total, context: context)
        } catch {
            Issue.record("\(error) (\(context))")
        }
    }

    static func run(seed: UInt64, total: Int, context: String) async throws {
        let server = try TestServer {
            $0.maxFrameBytes = maxFrameBytes
            // Every fuzzed frame should be read, not dropped by the rate limit.
            $0.messagesPerSecond = 1_000_000
            $0.messageBurst = 1_000_000
        }
        let a = try await server.client("ada", document: good)
        try await eventually("created") { (try? server.documents.contains(good)) == true }
        let grant = try await server.request("PUT", "/v1/documents/good/permissions", user: "ada", json: ["user": "rita", "role": "reader"])
        #expect(grant.status == 200)
        let b = try await server.client("ada", document: nil)
        b.sendsAccordUpdates = true
        b.open(good)
        // Their awareness entries go in first; no fuzzer may take them over.
        for (client, id) in zip([a, b], goodClients) { setAwareness(client, id, clock: 1) }
        try await eventually("awareness exchanged") {
            a.awarenessUpdates.contains { clients(in: $0).contains(goodClients[1]) }
                && b.awarenessUpdates.contains { clients(in: $0).contains(goodClients[0]) }
        }
        let memoryBefore = residentBytes()

        let started = ContinuousClock.now
        let stop = StopSignal()
        let editing = Task { try await keepEditing(a, b, seed: seed, stop: stop) }
        var tally = Tally()
        do {
            tally = try await withThrowingTaskGroup(of: Tally.self) { group in
                for slot in Slot.all {
                    let frames = total / Slot.all.count + (slot.index < total % Slot.all.count ? 1 : 0)
                    group.addTask { try await fuzz(slot, frames: frames, server: server, seed: seed) }
                }
                var tally = Tally()
                for try await slotTally in group { tally.add(slotTally) }
                return tally
            }
        } catch {
            stop.set()
            _ = try? await editing.value
            throw error
        }
        stop.set()
        let edits = try await editing.value
        let fuzzed = ContinuousClock.now - started
        let memoryAfter = residentBytes()

        print("""
            FuzzedFrameTests: \(total) frames in \(fuzzed), seed \(seed); \(tally.summary); \
            good edits \(edits.tokens.count) in \(edits.rounds) rounds; \
            resident \((memoryBefore ?? 0) >> 20) -> \((memoryAfter ?? 0) >> 20) MiB
            """)

        // The fuzzers did what they claim.
        #expect(tally.sent.values.reduce(0, +) == total, "\(context)")
        #expect(Set(tally.sent.keys) == Set(FrameFuzzer.Mutation.allCases), "\(tally.summary) \(context)")
        #expect(Set(tally.closes.keys) == [SyncCloseCode.malformed], "only malformed frames close: \(tally.summary) \(context)")
        for code in ["MALFORMED_MESSAGE", "MESSAGE_TOO_LARGE", "PERMISSION_DENIED"] {
            #expect(tally.errors[code, default: 0] > 0, "no \(code): \(tally.summary) \(context)")
        }

        // The good clients edited throughout, converged with every edit, never saw an error.
        #expect(edits.rounds >= 3, "\(edits.rounds) editing rounds during the fuzzing (\(context))")
        try await eventually("B's last update acked") { b.acks.last == UInt64(edits.byB) }
        let text = a.text(good)
        #expect(b.text(good) == text, "\(context)")
        #expect(edits.tokens.allSatisfy { text.contains($0) }, "\(context)")
        #expect(a.errors.isEmpty && b.errors.isEmpty, "\(a.errors) \(b.errors) \(context)")
        #expect(a.closed == nil && b.closed == nil, "\(context)")

        // The stored document is theirs.
        let stored = try server.storedState(good)
        #expect(stored.text == text, "\(context)")
        #expect(stored.stateVector == a.edit(good) { $0.stateVector }, "\(context)")
        #expect(stored.stateVector == b.edit(good) { $0.stateVector }, "\(context)")
        #expect(!stored.hasPendingUpdates, "\(context)")
        // The documents the fuzzers own took their intact (and some mutated) updates,
        // and still load from the store.
        for slot in Slot.all where slot.documents[0] != good {
            let fuzzed = try server.storedState(slot.documents[0])
            #expect(!fuzzed.log.isEmpty, "nothing stored for \(slot.documents[0]) (\(context))")
        }

        // The server still serves: new connections on both endpoints sync, and see the
        // good clients' awareness entries as they last set them (a query's answer shows
        // the last one was handled).
        for client in [a, b] {
            let count = client.awarenessUpdates.count
            client.send(.queryAwareness, document: good)
            try await eventually("the query's answer") { client.awarenessUpdates.count > count }
        }
        let fresh = try await server.client("ada", document: good)
        let reader = try await server.client("rita", document: nil)
        reader.open(good)
        try await eventually("new connections sync") { fresh.text(good) == text && reader.text(good) == text }
        let joined = try AwarenessUpdate.decode(try #require(fresh.awarenessUpdates.first))
        for (index, id) in goodClients.enumerated() {
            let entry = joined.entries.first { $0.clientID == id }
            #expect(entry?.state == goodState(index: index, clock: UInt64(edits.rounds) + 1), "\(context)")
        }
        #expect(fresh.errors.isEmpty && reader.errors.isEmpty, "\(context)")

        #if os(Linux)
        let before = try #require(memoryBefore), after = try #require(memoryAfter)
        #expect(after - before < 200 << 20, "resident memory grew from \(before >> 20) MiB to \(after >> 20) MiB (\(context))")
        #endif
        try await server.stop()
    }

    /// Sends `frames` fuzzed messages from one slot, each followed by a query for
    /// awareness that must be answered (or the connection closed) within 10 s, so every
    /// message is read before the next; reconnects whenever the server closed the
    /// connection (malformed frames do).
    static func fuzz(_ slot: Slot, frames: Int, server: TestServer, seed: UInt64) async throws -> Tally {
        var fuzzer = try FrameFuzzer(
            endpoint: slot.endpoint, documents: slot.documents, awarenessClients: slot.awarenessClients,
            maxFrameBytes: maxFrameBytes, seed: seed &+ UInt64(slot.index) &* 0x9E37_79B9)
        var tally = Tally()
        var client = try await connect(slot, server, tally: tally)
        for number in 0..<frames {
            if client.closed != nil {
                tally.record(client)
                client = try await connect(slot, server, tally: tally)
            }
            let (mutation, bytes) = fuzzer.next()
            tally.sent[mutation, default: 0] += 1
            let answered = answers(client, slot)
            client.sendRaw(bytes)
            client.send(.queryAwareness, document: slot.documents[0])
            try await eventually("slot \(slot.index) frame \(number) (\(mutation.rawValue)) answered") {
                client.closed != nil || answers(client, slot) > answered
            }
        }
        tally.record(client)
        client.close()
        return tally
    }

    /// A new connection for the slot, whose first message sets the slot's marker
    /// awareness entry (with a clock above the last connection's, as a returning Yjs
    /// client does).
    static func connect(_ slot: Slot, _ server: TestServer, tally: Tally) async throws -> SyncTestClient {
        let client = try await SyncTestClient.connect(
            port: server.port, document: slot.path, token: server.token("rita"), opens: false)
        let marker = AwarenessUpdate.Entry(
            clientID: slot.marker, clock: UInt64(tally.connections + 1), state: .string("slot \(slot.index)"))
        client.send(.awareness(AwarenessUpdate([marker]).encode()), document: slot.documents[0])
        return client
    }

    /// Answers to the slot's queries: awareness frames about its first document holding
    /// its marker. Other connections' updates are relayed without it (a relay holds only
    /// the entries that changed), and the server never echoes a connection's own.
    static func answers(_ client: SyncTestClient, _ slot: Slot) -> Int {
        client.frames.filter {
            guard case .awareness(let update) = $0.frame, $0.document == slot.documents[0] else { return false }
            return clients(in: update).contains(slot.marker)
        }.count
    }

    /// Edits from both good clients in rounds of ten (text inserted at either end), each
    /// round waiting for them to converge, until `stop` is set. B's edits go out as
    /// Accord updates, so each must be acked.
    static func keepEditing(
        _ a: SyncTestClient, _ b: SyncTestClient, seed: UInt64, stop: StopSignal
    ) async throws -> (tokens: [String], byB: Int, rounds: Int) {
        var rng = SplitMix64(seed: seed ^ 0x600D)
        var tokens: [String] = []
        var byB = 0
        var rounds = 0
        while !stop.isSet {
            for step in 0..<10 {
                let (client, name) = step % 2 == 0 ? (a, "a") : (b, "b")
                let token = "[\(name)\(rounds).\(step)]"
                let atEnd = rng.chance(0.5)
                try client.edit(good) { doc in
                    let text = try doc.getText("t")
                    try text.insert(atEnd ? text.length : 0, token)
                }
                tokens.append(token)
                if client === b { byB += 1 }
                try await Task.sleep(for: .milliseconds(10))
            }
            rounds += 1
            for (index, client) in [a, b].enumerated() { setAwareness(client, goodClients[index], clock: UInt64(rounds) + 1) }
            let length = tokens.reduce(0) { $0 + $1.count }
            try await eventually("the good clients converge in round \(rounds)", timeout: .seconds(20)) {
                a.text(good).count == length && a.text(good) == b.text(good)
            }
        }
        return (tokens, byB, rounds)
    }

    static func goodState(index: Int, clock: UInt64) -> AnyValue {
        .object(["user": .string(index == 0 ? "a" : "b"), "round": .int(Int64(clock))])
    }

    static func setAwareness(_ client: SyncTestClient, _ id: ClientID, clock: UInt64) {
        let index = goodClients.firstIndex(of: id) ?? 0
        let update = AwarenessUpdate([.init(clientID: id, clock: clock, state: goodState(index: index, clock: clock))])
        client.send(.awareness(update.encode()), document: good)
    }

    static func clients(in update: [UInt8]) -> [ClientID] {
        ((try? AwarenessUpdate.decode(update))?.entries ?? []).map(\.clientID)
    }

    /// This process's resident set size (the in-process server included), from
    /// `/proc/self/status`; nil where there is no such file.
    static func residentBytes() -> Int? {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return kilobytes.map { $0 * 1024 }
        }
        #endif
        return nil
    }

    // MARK: Awareness spoofing on /v1/sync/{id}

    @Test func aConnectionCannotOverwriteOrRemoveAnotherConnectionsAwarenessOnTheDocumentEndpoint() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "doc")
        let adaState = AnyValue.object(["name": .string("ada")])
        ada.send(.awareness(AwarenessUpdate([.init(clientID: 4242, clock: 1, state: adaState)]).encode()), document: "doc")
        let watcher = try await server.client("ada", document: "doc")
        try await eventually("the watcher sees ada's entry") {
            watcher.awarenessUpdates.contains { Self.clients(in: $0) == [4242] }
        }
        // Another connection (the same user, even) may not overwrite, remove or mix in
        // ada's id; its own ids still apply.
        let mallory = try await server.client("ada", document: "doc")
        let spoofs: [[AwarenessUpdate.Entry]] = [
            [.init(clientID: 4242, clock: 9, state: .object(["name": .string("mallory")]))],
            [.init(clientID: 4242, clock: 10, state: nil)],
            [.init(clientID: 5150, clock: 1, state: .object(["name": .string("m")])),
             .init(clientID: 4242, clock: 11, state: nil)],
        ]
        for (index, entries) in spoofs.enumerated() {
            mallory.send(.awareness(AwarenessUpdate(entries).encode()), document: "doc")
            try await eventually("spoof \(index) refused") { mallory.errors.count > index }
        }
        #expect(mallory.errors.map(\.code) == ["AWARENESS_CLIENT_TAKEN", "AWARENESS_CLIENT_TAKEN", "AWARENESS_CLIENT_TAKEN"])
        #expect(mallory.errors.allSatisfy { $0.document == "doc" })
        #expect(mallory.closed == nil)

        // What the room holds: ada's entry as she set it, and mallory's own.
        let relayedBeforeQuery = watcher.awarenessUpdates.count
        watcher.send(.queryAwareness, document: "doc")
        try await eventually("the room's states") { watcher.awarenessUpdates.count > relayedBeforeQuery }
        let relayed = try watcher.awarenessUpdates.dropLast().map(AwarenessUpdate.decode).flatMap(\.entries)
        #expect(relayed.filter { $0.clientID == 4242 } == [.init(clientID: 4242, clock: 1, state: adaState)])
        #expect(relayed.contains { $0.clientID == 5150 })
        let room = try AwarenessUpdate.decode(watcher.awarenessUpdates.last!)
        #expect(room.entries.first { $0.clientID == 4242 } == .init(clientID: 4242, clock: 1, state: adaState))
        #expect(room.entries.contains { $0.clientID == 5150 })

        // Ada still updates her own entry; mallory leaving removes only mallory's.
        ada.send(.awareness(AwarenessUpdate([.init(clientID: 4242, clock: 2, state: nil)]).encode()), document: "doc")
        try await eventually("ada's removal relayed") {
            watcher.awarenessUpdates.contains { (try? AwarenessUpdate.decode($0))?.entries == [.init(clientID: 4242, clock: 2, state: nil)] }
        }
        let beforeLeave = watcher.awarenessUpdates.count
        mallory.close()
        try await eventually("mallory's entry removed") { watcher.awarenessUpdates.count > beforeLeave }
        #expect(try AwarenessUpdate.decode(watcher.awarenessUpdates.last!).entries.map(\.clientID) == [5150])
        #expect(ada.errors.isEmpty && watcher.errors.isEmpty)
        try await server.stop()
    }
}

/// Set once by the test, read by the editing task.
final class StopSignal: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
