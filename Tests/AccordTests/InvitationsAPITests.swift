import Foundation
import Testing
import Accord
import AccordServer
import AccordTesting
@testable import AccordSync

/// Invitations by email against a real server: a grant to an address becomes the grant
/// of the first user whose token carries it, on their first request, and a user
/// connected elsewhere hears of it like any grant; removing by address cancels it.
@Suite(.timeLimit(.minutes(1))) struct InvitationsAPITests {
    let directory: TemporaryDirectory
    let tokens: TokenAuthority
    let server: AccordServer

    init() throws {
        directory = try TemporaryDirectory(prefix: "accord-invitations")
        tokens = try TokenAuthority(secret: Array("accord-invitations-test-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        server = try AccordServer(
            configuration: configuration, documents: try DocumentStore(path: directory.file("server.sqlite")), tokens: tokens)
    }

    /// A client whose token the test may swap (``TokenBox``), as after a new sign-in.
    private func client(_ user: String, email: String? = nil) throws -> (AccordClient, TokenBox) {
        let box = TokenBox(tokens.mint(subject: user, ttl: 3600, email: try email.map { try EmailAddress(validating: $0) }))
        let client = try AccordClient(
            serverURL: "ws://127.0.0.1:\(server.port)", storePath: directory.file("\(user)-\(UUID()).sqlite")
        ) { _ in box.token }
        return (client, box)
    }

    private func online(_ client: AccordClient) async throws {
        let connected = client.expectEvent(NetworkModeEvent.self) { $0.isOnline }
        await client.start()
        _ = try await connected.value(timeout: .seconds(10))
    }

    private func created(_ owner: AccordClient, _ ids: [DocumentID]) async throws {
        for id in ids {
            let synced = owner.expectEvent(DocumentSyncStateChangedEvent.self) { $0.documentID == id && $0.state == .synced }
            _ = try await owner.documents.create(id, title: id.rawValue)
            _ = try await synced.value()
        }
    }

    @Test func anEmailGrantBecomesAUserGrantOnFirstSignInAlsoWhileConnectedElsewhere() async throws {
        let (olivia, _) = try client("olivia")
        try await online(olivia)
        try await created(olivia, ["plan", "notes", "specs"])

        // Carol is connected (on "notes", shared with her by id) with a token without her address.
        let (carol, carolToken) = try client("carol")
        try await olivia.documents.updatePermissions("notes", .user("carol", permission: .reader))
        try await online(carol)
        _ = try await carol.documents.open("notes", waitForLoad: .network)

        // Olivia invites her address; nobody has it yet, so it is pending.
        let invited = try await olivia.documents.updatePermissions("plan", .email(" Carol@Example.com ", permission: .readWrite))
        #expect(invited.invitations == ["carol@example.com": .readWrite] && invited.members["carol"] == nil)
        let pending = try await olivia.documents.listPendingInvitations("plan")
        #expect(pending.map(\.email) == ["carol@example.com"] && pending.first?.permission == .readWrite)
        #expect(pending.first?.invitedBy == "olivia")

        // Her first request with a token carrying the address redeems it: the call itself
        // succeeds, and her open connection hears of it like any grant.
        let told = carol.expectEvent(PermissionEvent.self) { $0.documentID == "plan" }
        carolToken.token = tokens.mint(subject: "carol", ttl: 3600, email: try EmailAddress(validating: "carol@example.com"))
        let info = try await carol.documents.get("plan")
        #expect(info.permission == .readWrite)
        let event = try await told.value(timeout: .seconds(1))
        #expect(event.permission == .readWrite && event.previous == nil && event.cause == "grant")
        let after = try await olivia.documents.getPermissions("plan")
        #expect(after.members["carol"] == .readWrite && after.invitations.isEmpty)
        #expect(try await olivia.documents.listPendingInvitations("plan").isEmpty)

        // Now that the address is hers, a grant by it is her grant at once.
        let toldAgain = carol.expectEvent(PermissionEvent.self) { $0.documentID == "specs" }
        let direct = try await olivia.documents.updatePermissions("specs", .email("carol@example.com", permission: .reader))
        #expect(direct.members["carol"] == .reader && direct.invitations.isEmpty)
        #expect(try await toldAgain.value(timeout: .seconds(1)).permission == .reader)
        for device in [olivia, carol] { await device.stop() }
    }

    @Test func aSyncConnectionIsAFirstRequestToo() async throws {
        let (olivia, _) = try client("olivia")
        try await online(olivia)
        try await created(olivia, ["plan"])
        try await olivia.documents.updatePermissions("plan", .email("dan@example.com", permission: .reader))

        // Dan's first contact is his sync connection: he is told of the grant on it.
        let (dan, _) = try client("dan", email: "dan@example.com")
        let told = dan.expectEvent(PermissionEvent.self) { $0.documentID == "plan" }
        try await online(dan)
        #expect(try await told.value(timeout: .seconds(2)).permission == .reader)
        let shared = try await dan.me.sharedDocuments()
        #expect(shared.documents.map(\.id) == ["plan"])
        for device in [olivia, dan] { await device.stop() }
    }

    @Test func removingByEmailCancelsAPendingInvitation() async throws {
        let (olivia, _) = try client("olivia")
        try await online(olivia)
        try await created(olivia, ["plan"])
        try await olivia.documents.updatePermissions("plan", .email("eve@example.com", permission: .reader))
        let removed = try await olivia.documents.removePermission("plan", .email("EVE@example.com"))
        #expect(removed.invitations.isEmpty)
        #expect(try await olivia.documents.listPendingInvitations("plan").isEmpty)

        // Eve signs in later: nothing was left for her.
        let (eve, _) = try client("eve", email: "eve@example.com")
        let refused = await #expect(throws: AccordError.self) { _ = try await eve.documents.get("plan") }
        #expect(refused?.code == ErrorCode(rawValue: "DOC_ACCESS_DENIED"))

        // A malformed address is a coded 400.
        let malformed = await #expect(throws: AccordError.self) {
            try await olivia.documents.updatePermissions("plan", .email("eve@", permission: .reader))
        }
        #expect(malformed?.code == ErrorCode(rawValue: "INVALID_EMAIL") && malformed?.httpStatus == 400)
        for device in [olivia, eve] { await device.stop() }
    }
}

/// The token a test client sends; swapped to sign in anew.
final class TokenBox: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: String
    init(_ token: String) { value = token }
    var token: String {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
