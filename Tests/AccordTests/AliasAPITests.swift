import Foundation
import Testing
import Accord
import AccordServer
import AccordTesting

/// Aliases and the root document from `client.documents`, against a real server over
/// real HTTP, with many devices of one user racing.
@Suite(.timeLimit(.minutes(1))) struct AliasAPITests {
    let directory: TemporaryDirectory
    let tokens: TokenAuthority
    let server: AccordServer

    init() throws {
        directory = try TemporaryDirectory(prefix: "accord-alias")
        tokens = try TokenAuthority(secret: Array("accord-alias-test-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        server = try AccordServer(
            configuration: configuration, documents: try DocumentStore(path: directory.file("server.sqlite")), tokens: tokens)
    }

    private func device(_ user: String, _ name: String) throws -> AccordClient {
        let token = tokens.mint(subject: user, ttl: 3600)
        return try AccordClient(serverURL: "ws://127.0.0.1:\(server.port)", storePath: directory.file("\(name).sqlite")) { _ in
            token
        }
    }

    @Test func twentyDevicesRacingGetOneDocumentAndExactlyOneCreatesIt() async throws {
        let devices = try (0..<20).map { try device("olivia", "device-\($0)") }
        let alias = AliasRef(scope: .user, aliasKey: "my data")
        let results = try await withThrowingTaskGroup(of: AliasedDocument.self) { group in
            for device in devices {
                group.addTask { try await device.documents.getOrCreateWithAlias(alias: alias, title: "My data") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 20)
        #expect(Set(results.map(\.document.id)).count == 1)
        #expect(results.filter(\.created).count == 1)
        #expect(results.allSatisfy { $0.document.title == "My data" && $0.document.permission == .owner })

        let resolved = try await devices[0].documents.resolveAlias(alias)
        #expect(resolved.id == results[0].document.id)
        let taken = await #expect(throws: AccordError.self) {
            try await devices[1].documents.createWithAlias(alias: alias)
        }
        #expect(taken?.code == ErrorCode(rawValue: "ALIAS_EXISTS"))
        #expect(taken?.httpStatus == 409)
    }

    @Test func ownedDocumentsPageThroughEverythingTheUserOwns() async throws {
        let phone = try device("olivia", "phone")
        var made: [DocumentID] = []
        for index in 0..<7 {
            made.append(try await phone.documents.getOrCreateWithAlias(
                alias: AliasRef(aliasKey: "doc \(index)"), tags: index.isMultiple(of: 2) ? ["even"] : []).document.id)
        }
        var listed: [DocumentID] = []
        var cursor: String?
        repeat {
            let page = try await phone.me.ownedDocuments(limit: 3, cursor: cursor, waitForLoad: .network)
            #expect(page.documents.count <= 3)
            listed += page.documents.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(listed == made)
        #expect(try await phone.me.ownedDocuments(tag: "even", waitForLoad: .network).documents.map(\.id) == [made[0], made[2], made[4], made[6]])
        #expect(try await device("rita", "rita").me.ownedDocuments(waitForLoad: .network).documents.isEmpty)
        let bad = await #expect(throws: AccordError.self) { try await phone.me.ownedDocuments(cursor: "nope") }
        #expect(bad?.code == .invalidArgument && bad?.httpStatus == 400)
    }

    @Test func theRootDocumentIsTheSameOnEveryDeviceAndCannotBeSharedOrDeleted() async throws {
        let phone = try device("olivia", "phone")
        let laptop = try device("olivia", "laptop")
        let onPhone = try await phone.documents.root()
        let onLaptop = try await laptop.documents.root()
        #expect(onPhone.document.id == onLaptop.document.id)
        #expect([onPhone.created, onLaptop.created].filter { $0 }.count == 1)

        let id = onPhone.document.id
        for attempt in 0..<3 {
            let error = await #expect(throws: AccordError.self) {
                switch attempt {
                case 0: try await phone.documents.updatePermissions(id, .user("rita", permission: .reader))
                case 1: try await phone.documents.setLinkAccess(id, .reader)
                default: try await phone.documents.delete(id)
                }
            }
            #expect(error?.code == ErrorCode(rawValue: "ROOT_DOCUMENT_PROTECTED"), "attempt \(attempt)")
            #expect(error?.httpStatus == 403)
        }
        #expect(try await laptop.documents.get(id).permission == .owner)
    }
}
