import Foundation
import Testing
import Accord
import AccordServer
import AccordTesting
@testable import AccordSync

/// `client.groups` and the document grants to groups against a real server: every
/// connected member hears of a grant within a second, members list the group's
/// documents, and leaving the group takes the document away.
@Suite(.timeLimit(.minutes(1))) struct GroupsAPITests {
    let directory: TemporaryDirectory
    let tokens: TokenAuthority
    let server: AccordServer
    let serverStore: DocumentStore

    init() throws {
        directory = try TemporaryDirectory(prefix: "accord-groups")
        tokens = try TokenAuthority(secret: Array("accord-groups-test-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        configuration.adminUsers = ["admin"]
        serverStore = try DocumentStore(path: directory.file("server.sqlite"))
        server = try AccordServer(configuration: configuration, documents: serverStore, tokens: tokens)
    }

    private func client(_ user: String) throws -> AccordClient {
        let token = tokens.mint(subject: user, ttl: 3600)
        return try AccordClient(serverURL: "ws://127.0.0.1:\(server.port)", storePath: directory.file("\(user)-\(UUID()).sqlite")) {
            _ in token
        }
    }

    private func online(_ client: AccordClient) async throws {
        let connected = client.expectEvent(NetworkModeEvent.self) { $0.isOnline }
        await client.start()
        _ = try await connected.value(timeout: .seconds(10))
    }

    @Test func aGroupGrantReachesEveryConnectedMemberWithinASecond() async throws {
        let admin = try client("admin")
        _ = try await admin.send(ServerCall(
            .put, ["v1", "admin", "groups", "team", "design", "members"],
            body: Array(#"{"users":["gus","dana","ivy"]}"#.utf8)))
        let olivia = try client("olivia")
        try await online(olivia)
        let synced = olivia.expectEvent(DocumentSyncStateChangedEvent.self) { $0.state == .synced }
        _ = try await olivia.documents.create("specs", title: "Specs")
        _ = try await synced.value()

        var members: [AccordClient] = []
        var told: [EventExpectation<PermissionEvent>] = []
        for user in ["gus", "dana", "ivy"] {
            let member = try client(user)
            try await online(member)
            members.append(member)
            told.append(member.expectEvent(PermissionEvent.self) { $0.documentID == "specs" })
        }
        let stranger = try client("sam")
        try await online(stranger)
        let strangerTold = stranger.expectEvent(PermissionEvent.self)

        let granted = try await olivia.documents.grantGroupPermission(
            "specs", groupType: "team", groupId: "design", permission: .readWrite)
        #expect(granted.groups == ["team/design": .readWrite])
        for expectation in told {
            let event = try await expectation.value(timeout: .seconds(1))
            #expect(event.permission == .readWrite && event.previous == nil && event.cause == "group")
        }
        await #expect(throws: AccordError.self) { _ = try await strangerTold.value(timeout: .milliseconds(200)) }

        let page = try await members[0].groups.listDocuments(groupType: "team", groupId: "design")
        #expect(page.documents.map(\.id) == ["specs"] && page.documents.first?.permission == .readWrite)
        let refused = await #expect(throws: AccordError.self) {
            _ = try await stranger.groups.listDocuments(groupType: "team", groupId: "design")
        }
        #expect(refused?.code == ErrorCode(rawValue: "PERMISSION_DENIED") && refused?.httpStatus == 403)

        // Ivy leaves the group: she is told, and her copy goes.
        _ = try await members[2].documents.open("specs", waitForLoad: .network)
        let gone = members[2].expectEvent(DocumentMetadataChangedEvent.self) { $0.action == .deleted }
        _ = try await admin.send(ServerCall(
            .delete, ["v1", "admin", "groups", "team", "design", "members"], query: [("user", "ivy")]))
        _ = try await gone.value(timeout: .seconds(1))
        #expect(try !members[2].store.contains("specs"))

        let removed = try await olivia.documents.removeGroupPermission("specs", groupType: "team", groupId: "design")
        #expect(removed.groups.isEmpty)
        for member in members + [olivia, stranger] { await member.stop() }
    }
}

/// `client.collections` against a real server: a member hears of every document in the
/// collection, and of one added later, within a second.
@Suite(.timeLimit(.minutes(1))) struct CollectionsAPITests {
    @Test func aCollectionMemberHearsOfEveryDocumentInItWithinASecond() async throws {
        let directory = try TemporaryDirectory(prefix: "accord-collections")
        let tokens = try TokenAuthority(secret: Array("accord-collections-test-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        let serverStore = try DocumentStore(path: directory.file("server.sqlite"))
        let server = try AccordServer(configuration: configuration, documents: serverStore, tokens: tokens)
        func client(_ user: String) throws -> AccordClient {
            let token = tokens.mint(subject: user, ttl: 3600)
            return try AccordClient(serverURL: "ws://127.0.0.1:\(server.port)", storePath: directory.file("\(user).sqlite")) { _ in token }
        }
        let olivia = try client("olivia")
        let cora = try client("cora")
        for device in [olivia, cora] {
            let connected = device.expectEvent(NetworkModeEvent.self) { $0.isOnline }
            await device.start()
            _ = try await connected.value()
        }
        for id: DocumentID in ["plan", "later"] {
            let synced = olivia.expectEvent(DocumentSyncStateChangedEvent.self) { $0.documentID == id && $0.state == .synced }
            _ = try await olivia.documents.create(id, title: id.rawValue)
            _ = try await synced.value()
        }
        let created = try await olivia.collections.create(id: "team", title: "Team")
        #expect(created.owner == "olivia" && created.members == ["olivia": .owner])
        try await olivia.collections.addDocument("plan", to: "team")

        let told = cora.expectEvent(PermissionEvent.self) { $0.documentID == "plan" }
        let info = try await olivia.collections.setMember("cora", permission: .reader, in: "team")
        #expect(info.members == ["olivia": .owner, "cora": .reader] && info.documents == ["plan"])
        let event = try await told.value(timeout: .seconds(1))
        #expect(event.permission == .reader && event.cause == "collection")

        let later = cora.expectEvent(PermissionEvent.self) { $0.documentID == "later" }
        try await olivia.collections.addDocument("later", to: "team")
        #expect(try await later.value(timeout: .seconds(1)).permission == .reader)
        let page = try await cora.collections.listDocuments(collectionID: "team")
        #expect(page.documents.map(\.id) == ["later", "plan"] && page.documents.allSatisfy { $0.source == "collection" })
        #expect(try await cora.documents.get("later").permission == .reader)
        let refused = await #expect(throws: AccordError.self) { try await cora.collections.addDocument("plan", to: "team") }
        #expect(refused?.code == ErrorCode(rawValue: "PERMISSION_DENIED"))

        let gone = cora.expectEvent(PermissionEvent.self) { $0.documentID == "plan" && $0.permission == nil }
        try await olivia.collections.removeDocument("plan", from: "team")
        _ = try await gone.value(timeout: .seconds(1))
        await olivia.stop()
        await cora.stop()
        try await server.stop()
        try serverStore.close()
    }
}

/// Access requests through `client.documents` against a real server: asked, approved,
/// and the requester hears of the grant within a second.
@Suite(.timeLimit(.minutes(1))) struct AccessRequestAPITests {
    @Test func aRequesterIsToldOfTheApprovalWithinASecond() async throws {
        let directory = try TemporaryDirectory(prefix: "accord-access-requests")
        let tokens = try TokenAuthority(secret: Array("accord-access-requests-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        let serverStore = try DocumentStore(path: directory.file("server.sqlite"))
        let server = try AccordServer(configuration: configuration, documents: serverStore, tokens: tokens)
        func client(_ user: String) throws -> AccordClient {
            let token = tokens.mint(subject: user, ttl: 3600)
            return try AccordClient(serverURL: "ws://127.0.0.1:\(server.port)", storePath: directory.file("\(user).sqlite")) { _ in token }
        }
        let olivia = try client("olivia")
        let max = try client("max")
        for device in [olivia, max] {
            let connected = device.expectEvent(NetworkModeEvent.self) { $0.isOnline }
            await device.start()
            _ = try await connected.value()
        }
        let synced = olivia.expectEvent(DocumentSyncStateChangedEvent.self) { $0.state == .synced }
        _ = try await olivia.documents.create("plan", title: "Plan")
        _ = try await synced.value()

        let denied = await #expect(throws: AccordError.self) { try await max.documents.get("plan") }
        #expect(denied?.details["canRequestAccess"] == "true")
        let asked = try await max.documents.requestAccess("plan", permission: .reader, message: "may I?")
        #expect(asked.status == "pending" && asked.message == "may I?")
        let listed = try await olivia.documents.listAccessRequests("plan")
        #expect(listed.map(\.user) == ["max"])

        let told = max.expectEvent(PermissionEvent.self) { $0.documentID == "plan" }
        let approved = try await olivia.documents.approveAccessRequest("plan", requestID: asked.id)
        #expect(approved.status == "approved" && approved.resolvedBy == "olivia")
        #expect(try await told.value(timeout: .seconds(1)).permission == .reader)
        let again = await #expect(throws: AccordError.self) {
            try await olivia.documents.denyAccessRequest("plan", requestID: asked.id)
        }
        #expect(again?.code == ErrorCode(rawValue: "ACCESS_REQUEST_RESOLVED") && again?.httpStatus == 409)
        await olivia.stop()
        await max.stop()
        try await server.stop()
        try serverStore.close()
    }
}
