import AccordCRDT
import AccordStore
import Foundation
import Testing
@testable import AccordServer

/// Every caller × every message kind, on both sync endpoints, against a real server:
/// the outcome the caller sees, what the room's other member sees, and the stored
/// document (loaded state, raw log, snapshot, metadata and access row) before and
/// after. A refusal must leave every stored byte as it was; an allowed write must
/// change the document. The REST half of the matrix is `DocumentsAPIAuthorizationTests`.
@Suite(.timeLimit(.minutes(3)))
struct ProtocolAuthorizationTests {
    /// Who connects. "olivia" owns the document and grants "rita" reader and "wes"
    /// read-write through the REST API; "lena" has no grant, only the document's link
    /// access (set for the two link cases); "nobody" has nothing.
    enum Caller: String, CaseIterable, Sendable {
        case unauthenticated, none, reader, readWrite, owner, linkReader, linkReadWrite

        /// The token's subject; nil connects without a token.
        var user: String? {
            switch self {
            case .unauthenticated: nil
            case .none: "nobody"
            case .reader: "rita"
            case .readWrite: "wes"
            case .owner: "olivia"
            case .linkReader, .linkReadWrite: "lena"
            }
        }

        var linkAccess: String? {
            switch self {
            case .linkReader: "reader"
            case .linkReadWrite: "read-write"
            default: nil
            }
        }
    }

    /// One message of each kind a client can send about a document.
    enum Kind: String, CaseIterable, Sendable {
        case syncStep1, syncStep2, emptySyncStep2, syncUpdate, awareness, queryAwareness, accordUpdate, broadcast

        /// Whether an allowed message of this kind changes the stored document.
        var writes: Bool { self == .syncStep2 || self == .syncUpdate || self == .accordUpdate }
    }

    enum Endpoint: String, CaseIterable, Sendable {
        /// `/v1/sync/{id}`: y-websocket framing, one document.
        case document
        /// `/v1/sync`: multiplexed frames.
        case multiplexed
    }

    enum Outcome: Sendable {
        /// Answered or relayed as the protocol says; a write is stored.
        case allowed
        /// `PERMISSION_DENIED` naming the document; the connection stays open.
        case tooLow
        /// `DOC_ACCESS_DENIED` naming the document. `/v1/sync/{id}` also sends the
        /// y-protocols auth "permission denied" and closes with 4403; `/v1/sync` refuses
        /// only that document and keeps the connection.
        case noAccess
        /// `UNAUTHENTICATED` for the whole connection, then close 4401; nothing of the
        /// document is ever sent.
        case unauthenticated
    }

    /// The oracle, written out by hand rather than computed from roles. The same on
    /// both endpoints; only how `noAccess` ends the connection differs.
    static let expected: [Caller: [Kind: Outcome]] = {
        let ok = Outcome.allowed, low = Outcome.tooLow, no = Outcome.noAccess, out = Outcome.unauthenticated
        func row(_ outcomes: [Outcome]) -> [Kind: Outcome] {
            Dictionary(uniqueKeysWithValues: zip(Kind.allCases, outcomes))
        }
        //                                step1 step2 empty2 update aware query accord bcast
        return [
            .unauthenticated: row([out, out, out, out, out, out, out, out]),
            .none: row([no, no, no, no, no, no, no, no]),
            .reader: row([ok, low, ok, low, ok, ok, low, ok]),
            .readWrite: row([ok, ok, ok, ok, ok, ok, ok, ok]),
            .owner: row([ok, ok, ok, ok, ok, ok, ok, ok]),
            .linkReader: row([ok, low, ok, low, ok, ok, low, ok]),
            .linkReadWrite: row([ok, ok, ok, ok, ok, ok, ok, ok]),
        ]
    }()

    static let id: DocumentID = "team/notes"
    static let seed = "seed"
    /// Awareness client ids: the owner's observer connection, and the caller.
    static let observerClient: ClientID = 7001
    static let callerClient: ClientID = 8001

    // MARK: The matrix

    @Test(arguments: Caller.allCases, Kind.allCases)
    func singleDocumentEndpoint(_ caller: Caller, _ kind: Kind) async throws {
        try await Self.check(.document, caller, kind)
    }

    @Test(arguments: Caller.allCases, Kind.allCases)
    func multiplexedEndpoint(_ caller: Caller, _ kind: Kind) async throws {
        try await Self.check(.multiplexed, caller, kind)
    }

    /// The table covers every cell, so a new caller or kind must be given its outcomes.
    @Test func theOracleIsComplete() {
        for caller in Caller.allCases {
            #expect(Set(Self.expected[caller].map { Array($0.keys) } ?? []) == Set(Kind.allCases), "\(caller)")
        }
    }

    static func check(_ endpoint: Endpoint, _ caller: Caller, _ kind: Kind) async throws {
        let outcome = try #require(expected[caller]?[kind])
        let (server, observer) = try await fixture(linkAccess: caller.linkAccess)
        let before = try server.storedState(id)
        let client = try await connect(caller.user, to: endpoint, on: server)
        client.send(try frame(kind, from: caller), document: id)

        switch outcome {
        case .allowed, .tooLow:
            // A query after the message: its answer comes after everything the message
            // caused. The join itself sends one awareness frame (the observer's state).
            client.send(.queryAwareness, document: id)
            let awarenessFrames = 2 + (kind == .queryAwareness ? 1 : 0)
            try await eventually("the query's answer") { awarenessFrameCount(client) >= awarenessFrames }
            #expect(awarenessFrameCount(client) == awarenessFrames)
            #expect(client.closed == nil)
            if outcome == .allowed {
                #expect(client.errors.isEmpty, "\(client.errors)")
                try await expectAnswered(kind, from: caller, client: client, observer: observer)
            } else {
                #expect(client.errors.map(\.code) == ["PERMISSION_DENIED"])
                #expect(client.errors.map(\.document) == [id.rawValue])
                #expect(client.acks.isEmpty)
            }
        case .noAccess:
            switch endpoint {
            case .document:
                try await eventually("closed") { client.closed != nil }
                #expect(client.closed?.code == SyncCloseCode.forbidden)
                // The message may race the close, and is then refused on its own.
                #expect(!client.errors.isEmpty)
                #expect(client.errors.allSatisfy { $0.code == "DOC_ACCESS_DENIED" && $0.document == id.rawValue }, "\(client.errors)")
                #expect(!client.auth.isEmpty)
                #expect(client.auth.allSatisfy { if case .permissionDenied = $0 { true } else { false } })
            case .multiplexed:
                // Every frame naming the document is refused alone, and the connection stays.
                client.send(.queryAwareness, document: id)
                try await eventually("two refusals") { client.errors.count >= 2 }
                #expect(client.errors.map(\.code) == ["DOC_ACCESS_DENIED", "DOC_ACCESS_DENIED"])
                #expect(client.errors.map(\.document) == [id.rawValue, id.rawValue])
                #expect(client.closed == nil)
                #expect(client.auth.isEmpty)
            }
            #expect(documentFrames(client).isEmpty, "a refused caller received document frames")
        case .unauthenticated:
            try await eventually("closed") { client.closed != nil }
            #expect(client.closed?.code == SyncCloseCode.unauthenticated)
            #expect(client.errors.map(\.code) == ["UNAUTHENTICATED"])
            #expect(client.errors.map(\.document) == [nil])
            #expect(client.frames.count == 1, "only the error: no hello, nothing of the document")
        }

        // Everything the caller sent has been handled once its close has been.
        client.close()
        try await server.waitForConnections(1)
        try await roundTrip(observer)
        let after = try server.storedState(id)
        if outcome == .allowed && kind.writes {
            #expect(after != before)
            #expect(after.text.contains(marker(caller)) && after.text.contains(seed), "\(after)")
            #expect(Array(after.log.prefix(before.log.count)) == before.log, "earlier log entries rewritten")
            #expect(after.log.count == before.log.count + 1)
            #expect(observer.text(id) == after.text)
        } else {
            #expect(after == before, "stored state changed: \(before) -> \(after)")
            #expect(observer.text(id) == seed)
        }
        // What reached the room's other member.
        let relayedAwareness = observer.awarenessUpdates.contains { clients(in: $0).contains(callerClient) }
        #expect(relayedAwareness == (outcome == .allowed && kind == .awareness))
        #expect(observer.broadcasts.isEmpty == !(outcome == .allowed && kind == .broadcast))
        #expect(observer.errors.isEmpty)
        try await server.stop()
    }

    /// What an allowed message must have produced, for the caller or the observer.
    static func expectAnswered(
        _ kind: Kind, from caller: Caller, client: SyncTestClient, observer: SyncTestClient
    ) async throws {
        switch kind {
        case .syncStep1:
            // Our empty state vector asked for everything: the answer holds the seed.
            let answers = client.frames.compactMap { if case .sync(.step2(let update)) = $0.frame { update } else { nil } }
            #expect(answers.count == 1)
            let doc = Doc()
            for update in answers { try doc.applyUpdate(update) }
            #expect(try doc.getText("t").string == seed)
        case .syncStep2, .syncUpdate:
            try await eventually("the write relayed") { observer.text(id).contains(marker(caller)) }
        case .accordUpdate:
            try await eventually("the ack") { !client.acks.isEmpty }
            #expect(client.acks == [1])
            try await eventually("the write relayed") { observer.text(id).contains(marker(caller)) }
        case .emptySyncStep2:
            break  // nothing to apply, store or answer; the checks after the query suffice
        case .awareness:
            try await eventually("the awareness relayed") {
                observer.awarenessUpdates.contains { clients(in: $0).contains(callerClient) }
            }
            let relayed = try observer.awarenessUpdates.map(AwarenessUpdate.decode).flatMap(\.entries)
                .filter { $0.clientID == callerClient }
            #expect(relayed.map(\.state) == [.object(["user": .string(caller.user ?? "")])])
        case .queryAwareness:
            // Both awareness frames (the join's and the answer) carry the observer's state.
            let frames = client.frames.compactMap { if case .awareness(let update) = $0.frame { update } else { nil } }
            #expect(frames.prefix(2).allSatisfy { clients(in: $0) == [observerClient] })
        case .broadcast:
            try await eventually("the broadcast relayed") { !observer.broadcasts.isEmpty }
            #expect(observer.broadcasts == [
                .broadcast(documentID: id.rawValue, topic: "cursor", payload: #"{"at":1}"#, sender: caller.user),
            ])
        }
    }

    // MARK: Permissions changed while connected

    @Test(arguments: Endpoint.allCases)
    func revokingAGrantWhileConnectedEndsAccessAtOnce(_ endpoint: Endpoint) async throws {
        let (server, observer) = try await Self.fixture(linkAccess: nil)
        let wes = try await Self.connectSyncing("wes", to: endpoint, on: server)
        try wes.edit(Self.id) { try $0.getText("t").insert(0, "wes1 ") }
        try await eventually("wes's write relayed") { observer.text(Self.id).contains("wes1") }

        let revoke = try await server.request("DELETE", "/v1/documents/team/notes/permissions?user=wes", user: "olivia")
        #expect(revoke.status == 200)
        switch endpoint {
        case .document:
            try await eventually("closed") { wes.closed != nil }
            #expect(wes.closed?.code == SyncCloseCode.forbidden)
        case .multiplexed:
            try await eventually("refused") { !wes.errors.isEmpty }
            #expect(wes.closed == nil)
        }
        #expect(wes.errors.map(\.code) == ["DOC_ACCESS_DENIED"])
        let before = try server.storedState(Self.id)

        // A write after the revocation: on /v1/sync it asks to join again and is refused.
        try wes.edit(Self.id) { try $0.getText("t").insert(0, "wes2 ") }
        if endpoint == .multiplexed {
            try await eventually("refused again") { wes.errors.count >= 2 }
            #expect(wes.errors.map(\.code) == ["DOC_ACCESS_DENIED", "DOC_ACCESS_DENIED"])
            // The connection's other documents carry on.
            wes.open("wes/own")
            try wes.edit("wes/own") { try $0.getText("t").insert(0, "mine") }
            try await eventually("own document stored") { (try? server.storedState("wes/own").text) == "mine" }
        }
        // Reconnecting is refused too.
        let again = try await server.client("wes", document: Self.id)
        try await eventually("reconnect refused") { again.closed != nil }
        #expect(again.closed?.code == SyncCloseCode.forbidden)
        #expect(again.errorCodes == ["DOC_ACCESS_DENIED"])

        wes.close()
        try await server.waitForConnections(1)
        #expect(try server.storedState(Self.id) == before)
        #expect(!observer.text(Self.id).contains("wes2"))
        try await server.stop()
    }

    @Test(arguments: Endpoint.allCases)
    func downgradingReadWriteToReaderRefusesTheNextWrite(_ endpoint: Endpoint) async throws {
        let (server, observer) = try await Self.fixture(linkAccess: nil)
        let wes = try await Self.connectSyncing("wes", to: endpoint, on: server)
        try wes.edit(Self.id) { try $0.getText("t").insert(0, "wes1 ") }
        try await eventually("wes's write relayed") { observer.text(Self.id).contains("wes1") }

        let lower = try await server.request(
            "PUT", "/v1/documents/team/notes/permissions", user: "olivia", json: ["user": "wes", "role": "reader"])
        #expect(lower.status == 200)
        let before = try server.storedState(Self.id)
        try wes.edit(Self.id) { try $0.getText("t").insert(0, "wes2 ") }
        try await eventually("refused") { !wes.errors.isEmpty }
        #expect(wes.errors.map(\.code) == ["PERMISSION_DENIED"])
        try await Self.roundTrip(wes)
        #expect(try server.storedState(Self.id) == before)
        #expect(wes.closed == nil)

        // Still a reader: the owner's edits keep arriving.
        try observer.edit(Self.id) { try $0.getText("t").insert(0, "olivia2 ") }
        try await eventually("the owner's edit reaches the reader") { wes.text(Self.id).contains("olivia2") }
        #expect(!observer.text(Self.id).contains("wes2"))
        let after = try server.storedState(Self.id)
        #expect(after.text.contains("olivia2") && !after.text.contains("wes2"))
        try await server.stop()
    }

    @Test(arguments: Endpoint.allCases)
    func loweringAndRemovingLinkAccessWhileConnected(_ endpoint: Endpoint) async throws {
        let (server, observer) = try await Self.fixture(linkAccess: "read-write")
        let lena = try await Self.connectSyncing("lena", to: endpoint, on: server)
        try lena.edit(Self.id) { try $0.getText("t").insert(0, "lena1 ") }
        try await eventually("lena's write relayed") { observer.text(Self.id).contains("lena1") }

        let lower = try await server.request("PUT", "/v1/documents/team/notes/link-access", user: "olivia", json: ["role": "reader"])
        #expect(lower.status == 200)
        let before = try server.storedState(Self.id)
        try lena.edit(Self.id) { try $0.getText("t").insert(0, "lena2 ") }
        try await eventually("refused") { !lena.errors.isEmpty }
        #expect(lena.errors.map(\.code) == ["PERMISSION_DENIED"])
        try await Self.roundTrip(lena)
        #expect(try server.storedState(Self.id) == before)

        let remove = try await server.request("DELETE", "/v1/documents/team/notes/link-access", user: "olivia")
        #expect(remove.status == 200)
        let removed = try server.storedState(Self.id)
        #expect(removed.access != before.access && removed.update == before.update && removed.log == before.log)
        switch endpoint {
        case .document:
            try await eventually("closed") { lena.closed != nil }
            #expect(lena.closed?.code == SyncCloseCode.forbidden)
        case .multiplexed:
            try await eventually("access removed") { lena.errors.count >= 2 }
            #expect(lena.closed == nil)
            try lena.edit(Self.id) { try $0.getText("t").insert(0, "lena3 ") }
            try await eventually("refused again") { lena.errors.count >= 3 }
        }
        let expectedErrors = ["PERMISSION_DENIED", "DOC_ACCESS_DENIED"] + (endpoint == .multiplexed ? ["DOC_ACCESS_DENIED"] : [])
        #expect(lena.errors.map(\.code) == expectedErrors)
        lena.close()
        try await server.waitForConnections(1)
        #expect(try server.storedState(Self.id) == removed)
        #expect(!observer.text(Self.id).contains("lena2") && !observer.text(Self.id).contains("lena3"))
        try await server.stop()
    }

    // MARK: Fixture

    /// A server where "olivia" created the document through REST, granted "rita" reader
    /// and "wes" read-write, optionally set link access, wrote the seed text and set an
    /// awareness state from an observer connection that stays open.
    static func fixture(linkAccess: String?) async throws -> (TestServer, SyncTestClient) {
        let server = try TestServer()
        let created = try await server.request("POST", "/v1/documents", user: "olivia", json: ["id": id.rawValue])
        guard created.status == 201 else { throw TestFailure("create: \(created.status) \(created.body)") }
        for (user, role) in [("rita", "reader"), ("wes", "read-write")] {
            let grant = try await server.request(
                "PUT", "/v1/documents/team/notes/permissions", user: "olivia", json: ["user": user, "role": role])
            guard grant.status == 200 else { throw TestFailure("grant: \(grant.status) \(grant.body)") }
        }
        if let linkAccess {
            let set = try await server.request("PUT", "/v1/documents/team/notes/link-access", user: "olivia", json: ["role": linkAccess])
            guard set.status == 200 else { throw TestFailure("link access: \(set.status) \(set.body)") }
        }
        let observer = try await server.client("olivia", document: id)
        try observer.edit(id) { try $0.getText("t").insert(0, seed) }
        let state = AwarenessUpdate([.init(clientID: observerClient, clock: 1, state: .object(["user": .string("olivia")]))])
        observer.send(.awareness(state.encode()), document: id)
        observer.send(.queryAwareness, document: id)
        try await eventually("the observer's awareness state") {
            observer.awarenessUpdates.contains { clients(in: $0).contains(observerClient) }
        }
        try await eventually("the seed stored") { try server.storedState(id).text == seed }
        return (server, observer)
    }

    /// A connection that sends only what the test scripts (no step 1 of its own).
    static func connect(_ user: String?, to endpoint: Endpoint, on server: TestServer) async throws -> SyncTestClient {
        try await SyncTestClient.connect(
            port: server.port, document: endpoint == .document ? id : nil, token: user.map(server.token), opens: false)
    }

    /// A syncing client with the document open, once it holds the seed.
    static func connectSyncing(_ user: String, to endpoint: Endpoint, on server: TestServer) async throws -> SyncTestClient {
        let client = try await server.client(user, document: endpoint == .document ? id : nil)
        if endpoint == .multiplexed { client.open(id) }
        try await eventually("\(user) synced") { client.text(id) == seed }
        return client
    }

    /// Sends a query for awareness and waits for its answer: everything the server sent
    /// this connection before has then arrived.
    static func roundTrip(_ client: SyncTestClient) async throws {
        let count = awarenessFrameCount(client)
        client.send(.queryAwareness, document: id)
        try await eventually("the query's answer") { awarenessFrameCount(client) > count }
    }

    /// The caller's message of each kind. Writes insert ``marker(_:)`` from a fresh Doc.
    static func frame(_ kind: Kind, from caller: Caller) throws -> ProtocolFrame {
        switch kind {
        case .syncStep1:
            return .sync(.step1(stateVector: Doc().encodeStateVector()))
        case .syncStep2:
            return .sync(.step2(update: try edit(by: caller)))
        case .emptySyncStep2:
            return .sync(.step2(update: Doc().encodeStateAsUpdate()))
        case .syncUpdate:
            return .sync(.update(try edit(by: caller)))
        case .awareness:
            let state = AnyValue.object(["user": .string(caller.user ?? "")])
            return .awareness(AwarenessUpdate([.init(clientID: callerClient, clock: 1, state: state)]).encode())
        case .queryAwareness:
            return .queryAwareness
        case .accordUpdate:
            return try AccordMessage.update(documentID: id.rawValue, sequence: 1, bytes: try edit(by: caller)).frame()
        case .broadcast:
            return try AccordMessage.broadcast(documentID: id.rawValue, topic: "cursor", payload: #"{"at":1}"#, sender: nil)
                .frame()
        }
    }

    static func marker(_ caller: Caller) -> String { "<\(caller.rawValue)>" }

    static func edit(by caller: Caller) throws -> [UInt8] {
        let doc = Doc(clientID: 9001)
        try doc.getText("t").insert(0, marker(caller))
        return doc.encodeStateAsUpdate()
    }

    static func clients(in update: [UInt8]) -> [ClientID] {
        ((try? AwarenessUpdate.decode(update))?.entries ?? []).map(\.clientID)
    }

    static func awarenessFrameCount(_ client: SyncTestClient) -> Int {
        client.frames.filter { if case .awareness = $0.frame { true } else { false } }.count
    }

    /// Sync and awareness frames: the document's content and its people.
    static func documentFrames(_ client: SyncTestClient) -> [ProtocolFrame] {
        client.frames.map(\.frame).filter {
            switch $0 {
            case .sync, .awareness: true
            default: false
            }
        }
    }
}
