import Foundation
import Testing
import Accord
import AccordServer
import AccordTesting

/// `client.documents` sharing calls against a real server over real HTTP: results,
/// refusals with the server's code and status, and unreachable servers.
@Suite(.timeLimit(.minutes(1))) struct SharingAPITests {
    let directory: TemporaryDirectory
    let tokens: TokenAuthority
    let server: AccordServer
    let serverStore: DocumentStore

    init() throws {
        directory = try TemporaryDirectory(prefix: "accord-sharing")
        tokens = try TokenAuthority(secret: Array("accord-sharing-test-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        serverStore = try DocumentStore(path: directory.file("server.sqlite"))
        server = try AccordServer(configuration: configuration, documents: serverStore, tokens: tokens)
    }

    private func client(_ user: String, url: String? = nil) throws -> AccordClient {
        let token = tokens.mint(subject: user, ttl: 3600)
        return try AccordClient(
            serverURL: url ?? "ws://127.0.0.1:\(server.port)", storePath: directory.file("\(user)-\(UUID()).sqlite")
        ) { _ in token }
    }

    /// Olivia's document, made on her device and created on the server by her first sync.
    private func sharedDocument(_ olivia: AccordClient) async throws -> DocumentID {
        let notes = try await olivia.documents.create("team/notes", title: "Notes", tags: ["team"])
        await olivia.start()
        try await waitUntilTrue { (try? await olivia.documents.get(notes.id)) != nil }
        return notes.id
    }

    @Test func theOwnerSharesAndTheMemberSeesTheirPermission() async throws {
        let olivia = try client("olivia")
        let rita = try client("rita")
        let id = try await sharedDocument(olivia)

        let info = try await olivia.documents.get(id)
        #expect(info.id == id && info.permission == .owner)
        #expect(info.created <= info.updated)

        let granted = try await olivia.documents.updatePermissions(
            id, .batch([.user("rita", permission: .readWrite), .user("wes", permission: .reader), .user("rita", permission: .reader)]))
        #expect(granted.owner == "olivia")
        #expect(granted.members == ["rita": .reader, "wes": .reader])  // the latest grant wins
        #expect(try await olivia.documents.getPermissions(id) == granted)
        #expect(try await rita.documents.get(id).permission == .reader)
        let shared = try await rita.me.sharedDocuments()
        #expect(shared.documents.map(\.id) == [id] && shared.nextCursor == nil)
        #expect(shared.documents.first?.grantedBy == "olivia" && shared.documents.first?.source == "direct")
        #expect(shared.documents.first?.permission == .reader)

        // Ownership moves; the previous owner stays a read-write member.
        let transferred = try await olivia.documents.transferOwnership(id, to: "rita")
        #expect(transferred.owner == "rita" && transferred.members == ["olivia": .readWrite, "wes": .reader])
        #expect(try await rita.documents.get(id).permission == .owner)
        try await rita.documents.transferOwnership(id, to: "olivia")

        let removed = try await olivia.documents.removePermission(id, .userID("wes"))
        #expect(removed.members == ["rita": .readWrite])
        // Removing a grant that does not exist succeeds and changes nothing.
        #expect(try await olivia.documents.removePermission(id, .userID("wes")) == removed)
    }

    @Test func linkAccessReportsWhoChangedItAndWhen() async throws {
        let olivia = try client("olivia")
        let lena = try client("lena")
        let id = try await sharedDocument(olivia)
        #expect(try await olivia.documents.getLinkAccess(id) == LinkAccess(level: nil, changedBy: nil, changedAt: nil))

        let before = Date()
        let set = try await olivia.documents.setLinkAccess(id, .reader)
        #expect(set.level == .reader && set.changedBy == "olivia")
        let changedAt = try #require(set.changedAt)
        #expect(abs(changedAt.timeIntervalSince(before)) < 60)
        #expect(try await lena.documents.getLinkAccess(id) == set)
        #expect(try await lena.documents.get(id).permission == .reader)

        let cleared = try await olivia.documents.clearLinkAccess(id)
        #expect(cleared.level == nil && cleared.changedBy == "olivia")
        let denied = await #expect(throws: AccordError.self) { try await lena.documents.get(id) }
        #expect(denied?.code == .docAccessDenied)
    }

    @Test func refusalsCarryTheServersCodeStatusAndDetails() async throws {
        let olivia = try client("olivia")
        let rita = try client("rita")
        let id = try await sharedDocument(olivia)
        try await olivia.documents.updatePermissions(id, .user("rita", permission: .reader))
        let before = try serverStore.metadata(id)

        let tooLow = await #expect(throws: AccordError.self) {
            try await rita.documents.updatePermissions(id, .user("zoe", permission: .reader))
        }
        #expect(tooLow?.code == .permissionDenied)
        #expect(tooLow?.httpStatus == 403)
        #expect(tooLow?.details["document"] == id.rawValue)
        #expect(tooLow?.details["role"] == "reader")

        let missing = await #expect(throws: AccordError.self) { try await olivia.documents.get("no/such") }
        #expect(missing?.code == .documentNotFound)
        #expect(missing?.httpStatus == 404)

        let owner = await #expect(throws: AccordError.self) {
            try await olivia.documents.updatePermissions(id, .user("rita", permission: .owner))
        }
        #expect(owner?.code == .invalidArgument)
        #expect(owner?.httpStatus == 400)

        // Nothing the refusals touched changed.
        #expect(try await olivia.documents.getPermissions(id).members == ["rita": .reader])
        #expect(try serverStore.metadata(id) == before)
    }

    @Test func updateLeavesSetsAndClearsDirectoryFields() async throws {
        let olivia = try client("olivia")
        let wes = try client("wes")
        let rita = try client("rita")
        let id = try await sharedDocument(olivia)
        try await olivia.documents.updatePermissions(
            id, .batch([.user("wes", permission: .readWrite), .user("rita", permission: .reader)]))

        let set = try await wes.documents.update(
            id, title: "Plans", tags: ["q3"], thumbnailBlobID: .set("sha256-abc"),
            metadata: .set(.object(["color": .string("blue"), "pinned": .bool(true)])))
        #expect(set.title == "Plans" && set.tags == ["q3"] && set.owner == "olivia")
        #expect(set.thumbnailBlobID == "sha256-abc")
        #expect(set.metadata == .object(["color": .string("blue"), "pinned": .bool(true)]))

        let renamed = try await olivia.documents.update(id, title: "Plans 2")
        #expect(renamed.metadata == set.metadata && renamed.thumbnailBlobID == "sha256-abc" && renamed.tags == ["q3"])

        let cleared = try await olivia.documents.update(id, thumbnailBlobID: .clear, metadata: .clear)
        #expect(cleared.metadata == nil && cleared.thumbnailBlobID == nil && cleared.title == "Plans 2")

        let reader = await #expect(throws: AccordError.self) { try await rita.documents.update(id, title: "mine") }
        #expect(reader?.code == .permissionDenied)
        let tooLarge = await #expect(throws: AccordError.self) {
            try await olivia.documents.update(id, metadata: .set(.string(String(repeating: "x", count: 5000))))
        }
        #expect(tooLarge?.code == ErrorCode(rawValue: "METADATA_TOO_LARGE"))
        #expect(tooLarge?.httpStatus == 400)
        #expect(try await olivia.documents.get(id) == cleared)
    }

    @Test func deleteRemovesTheDocumentOnTheServerAndTheLocalCopy() async throws {
        let olivia = try client("olivia")
        let rita = try client("rita")
        let id = try await sharedDocument(olivia)
        try await olivia.documents.updatePermissions(id, .user("rita", permission: .readWrite))

        let notOwner = await #expect(throws: AccordError.self) { try await rita.documents.delete(id) }
        #expect(notOwner?.code == .permissionDenied)
        #expect(try serverStore.contains(id))

        try await olivia.documents.delete(id)
        #expect(try !serverStore.contains(id))
        #expect(try !olivia.store.contains(id))
        let gone = await #expect(throws: AccordError.self) { try await olivia.documents.get(id) }
        #expect(gone?.code == .documentNotFound)
    }

    @Test func aRefusedTokenIsAskedForAgainOnceThenTheServersRefusalStands() async throws {
        let olivia = try client("olivia")
        let id = try await sharedDocument(olivia)
        let good = tokens.mint(subject: "olivia", ttl: 3600)
        let reasons = ReasonLog()
        let refreshing = try AccordClient(
            serverURL: "ws://127.0.0.1:\(server.port)", storePath: directory.file("refreshing.sqlite")
        ) { reason in
            reasons.add(reason)
            if case .unauthenticated = reason { return good }
            return "expired-token"
        }
        #expect(try await refreshing.documents.get(id).permission == .owner)
        #expect(reasons.count == 2)

        let neverValid = try AccordClient(
            serverURL: "ws://127.0.0.1:\(server.port)", storePath: directory.file("never.sqlite")) { _ in "bad" }
        let refused = await #expect(throws: AccordError.self) { try await neverValid.documents.get(id) }
        #expect(refused?.code == ErrorCode(rawValue: "UNAUTHENTICATED") && refused?.httpStatus == 401)
    }

    @Test func anUnreachableServerIsANetworkErrorNotARefusal() async throws {
        // A port that was free a moment ago: nothing listens there.
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        let gone = try AccordServer(
            configuration: configuration, documents: try DocumentStore(path: directory.file("gone.sqlite")), tokens: tokens)
        let port = gone.port
        try await gone.stop()
        let offline = try client("olivia", url: "ws://127.0.0.1:\(port)")
        let error = await #expect(throws: AccordError.self) { try await offline.documents.get("team/notes") }
        #expect(error?.code == .networkError)
        #expect(error?.httpStatus == nil)
        #expect(error?.details["netCode"] == "NET_CONNECT_FAILED")
    }

    private func waitUntilTrue(_ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw AccordError(.unavailable, "condition never held") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Token requests seen by a provider, from any task.
private final class ReasonLog: @unchecked Sendable {
    // Invariant: `reasons` is only touched while `lock` is held.
    private let lock = NSLock()
    private var reasons: [TokenRequestReason] = []
    func add(_ reason: TokenRequestReason) { lock.withLock { reasons.append(reason) } }
    var count: Int { lock.withLock { reasons.count } }
}
