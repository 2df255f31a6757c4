import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordNet
@testable import AccordServer

/// Invitations by email (`docs/sharing.md`, Invitations): a grant to an address nobody
/// has signed in with is pending until the first user whose token carries it signs in;
/// removing by address cancels it; addresses are normalized and malformed ones refused;
/// every caller × every new route with the stored rows compared.
@Suite struct InvitationsTests {
    /// A DocumentsAPI over an in-memory store with an outbox. "olivia" owns "doc"; "wes"
    /// read-write, "rita" reader; with `linkAccess`, link reader ("lena"); team/design
    /// ("gus", put there by the groups admin "ada") reader; "cora" reader through the
    /// collection "col"; "ann@example.com" has a pending reader invitation.
    final class Harness: @unchecked Sendable {
        let documents = DocumentStore(storage: .inMemory())
        let directory: DocumentDirectory
        let outbox: NotificationOutbox
        let api: DocumentsAPI
        let groupsAPI: GroupsAPI
        let collectionsAPI: CollectionsAPI
        private let reported = ReportedChanges()

        var changes: [DirectoryChange] { reported.all }

        init(linkAccess: Bool = false) throws {
            directory = DocumentDirectory(documents: documents, access: AccessStore(storage: documents.storage))
            outbox = try NotificationOutbox(storage: documents.storage)
            let reported = reported
            let authenticate: @Sendable (HTTPRequest) throws(AccordError) -> String = { request throws(AccordError) in
                guard let user = request.header("x-test-user") else { throw AccordError(.unauthenticated, "none") }
                return user
            }
            api = DocumentsAPI(
                directory: directory, authenticate: authenticate,
                accessChanged: { _ in }, directoryChanged: { reported.append($0) }, notifications: outbox)
            groupsAPI = GroupsAPI(
                directory: directory, admins: ["ada"], authenticate: authenticate, adminClaim: { _ in false },
                membershipChanged: { _, _, _ in })
            collectionsAPI = CollectionsAPI(
                directory: directory, authenticate: authenticate, directoryChanged: { _ in }, accessChanged: { _ in },
                collectionChanged: { _ in })
            try directory.create("doc", owner: "olivia")
            _ = send(.put, "/v1/documents/doc/permissions", as: "olivia", body: #"{"user":"wes","role":"read-write"}"#)
            _ = send(.put, "/v1/documents/doc/permissions", as: "olivia", body: #"{"user":"rita","role":"reader"}"#)
            if linkAccess { _ = send(.put, "/v1/documents/doc/link-access", as: "olivia", body: #"{"role":"reader"}"#) }
            try expectOK(groupsAPI.respond(to: request(.put, "/v1/admin/groups/team/design/members", as: "ada", body: #"{"users":["gus"]}"#)))
            try expectOK(send(.put, "/v1/documents/doc/groups", as: "olivia", body: #"{"groupType":"team","groupId":"design","role":"reader"}"#))
            try expectOK(collectionsAPI.respond(to: request(.post, "/v1/collections", as: "olivia", body: #"{"id":"col","title":"Team"}"#)))
            try expectOK(collectionsAPI.respond(to: request(.put, "/v1/collections/col/documents", as: "olivia", body: #"{"document":"doc"}"#)))
            try expectOK(collectionsAPI.respond(to: request(.put, "/v1/collections/col/members", as: "olivia", body: #"{"user":"cora","role":"reader"}"#)))
            #expect(try directory.access.role(of: "gus", on: "doc") == .reader && directory.access.role(of: "cora", on: "doc") == .reader)
            _ = send(.put, "/v1/documents/doc/permissions", as: "olivia", body: #"{"email":"ann@example.com","role":"reader"}"#)
        }

        private func expectOK(_ response: HTTPResponse) throws {
            guard (200..<300).contains(response.status) else {
                throw AccordError(.ioError, "setup answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
            }
        }

        func send(_ method: HTTPMethod, _ path: String, as user: String?, body: String? = nil) -> HTTPResponse {
            api.respond(to: request(method, path, as: user, body: body))
        }

        /// `path` may end in `?name=value&…` (not percent-encoded), split off as the server does.
        func request(_ method: HTTPMethod, _ path: String, as user: String?, body: String? = nil) -> HTTPRequest {
            var headers: [String: String] = [:]
            if let user { headers["x-test-user"] = user }
            let parts = path.split(separator: "?", maxSplits: 1).map(String.init)
            let query = (parts.count > 1 ? parts[1].split(separator: "&") : []).map { pair in
                let nameAndValue = pair.split(separator: "=", maxSplits: 1).map(String.init)
                return QueryItem(name: nameAndValue[0], value: nameAndValue.count > 1 ? nameAndValue[1] : "")
            }
            return HTTPRequest(method: method, path: parts[0], query: query, headers: headers, body: Array((body ?? "").utf8))
        }

        /// Every row the invitation code may touch, by category and key.
        func stored() throws -> [String: [String: [UInt8]]] {
            try documents.storage.withAdapter { adapter in
                var state: [String: [String: [UInt8]]] = [:]
                for name in ["server.access", "server.invitation", "server.email-user", "server.outbox", "server.details", "doc.meta",
                             "server.group", "server.collection"] {
                    let category = StorageCategory(name)
                    for key in try adapter.keys(in: category) { state[name, default: [:]][key] = try adapter.read(category, key: key) }
                }
                return state
            }
        }
    }

    static func json(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    static func code(_ response: HTTPResponse) -> String? { (json(response)["error"] as? [String: Any])?["code"] as? String }

    static func email(_ text: String) throws -> EmailAddress { try EmailAddress(validating: text) }

    // MARK: Pending, redeemed, cancelled

    @Test func anEmailGrantIsPendingUntilTheFirstSignInThenAUserGrant() throws {
        let harness = try Harness()
        let granted = harness.send(.put, "/v1/documents/doc/permissions", as: "olivia", body: #"{"email":"  Bob@Example.COM ","role":"read-write"}"#)
        #expect(granted.status == 200)
        #expect(Self.json(granted)["invitations"] as? [String: String] == ["ann@example.com": "reader", "bob@example.com": "read-write"])
        #expect((Self.json(granted)["members"] as? [String: String])?["bob"] == nil)
        let listed = Self.json(harness.send(.get, "/v1/documents/doc/invitations", as: "olivia"))["invitations"] as? [[String: Any]]
        #expect(listed?.map { $0["email"] as? String } == ["ann@example.com", "bob@example.com"])
        #expect(listed?.last?["role"] as? String == "read-write" && listed?.last?["invitedBy"] as? String == "olivia")
        // A pending invitation grants nothing.
        #expect(try harness.directory.access.role(of: "bob", on: "doc") == nil)

        // Bob's first request with the address: the invitation becomes his grant.
        let redeemed = try harness.directory.signIn(user: "bob", email: Self.email("bob@example.com"))
        #expect(redeemed.map(\.id) == ["doc"])
        #expect(redeemed.first?.after.members["bob"] == .readWrite)
        #expect(try harness.directory.access.role(of: "bob", on: "doc") == .readWrite)
        #expect(try harness.directory.access.access("doc")?.invitations.map { Array($0.keys) } == ["ann@example.com"])
        let shared = try harness.directory.sharedDocuments(of: "bob", after: 0, limit: 10)
        #expect(shared.entries.map(\.metadata.id) == ["doc"])
        // Later requests change nothing; another user with the same address gets nothing.
        #expect(try harness.directory.signIn(user: "bob", email: Self.email("bob@example.com")).isEmpty)
        #expect(try harness.directory.signIn(user: "mallory", email: Self.email("BOB@example.com")).isEmpty)
        #expect(try harness.directory.access.role(of: "mallory", on: "doc") == nil)

        // Once claimed, a grant by the address is Bob's grant at once (and reported).
        let before = harness.changes.count
        let again = harness.send(.put, "/v1/documents/doc/permissions", as: "olivia", body: #"{"email":"bob@example.com","role":"reader"}"#)
        #expect((Self.json(again)["members"] as? [String: String])?["bob"] == "reader")
        #expect(Self.json(again)["invitations"] as? [String: String] == ["ann@example.com": "reader"])
        #expect(harness.changes.count == before + 1)
        // Removing by the address removes the member.
        let removed = harness.send(.delete, "/v1/documents/doc/permissions?email=bob@example.com", as: "olivia")
        #expect((Self.json(removed)["members"] as? [String: String])?["bob"] == nil)
        #expect(try harness.directory.access.role(of: "bob", on: "doc") == nil)
    }

    @Test func removingByEmailCancelsAPendingInvitation() throws {
        let harness = try Harness()
        let removed = harness.send(.delete, "/v1/documents/doc/permissions", as: "olivia", body: #"{"email":" ANN@example.com"}"#)
        #expect(removed.status == 200)
        #expect(Self.json(removed)["invitations"] == nil)
        #expect((Self.json(harness.send(.get, "/v1/documents/doc/invitations", as: "olivia"))["invitations"] as? [Any])?.isEmpty == true)
        #expect(try harness.directory.access.invitations.documents(invitedAs: Self.email("ann@example.com")).isEmpty)
        // Ann signing in later gets nothing.
        #expect(try harness.directory.signIn(user: "ann", email: Self.email("ann@example.com")).isEmpty)
        #expect(try harness.directory.access.role(of: "ann", on: "doc") == nil)
        // Removing again succeeds and changes nothing.
        let stored = try harness.stored()
        #expect(harness.send(.delete, "/v1/documents/doc/permissions?email=nobody@example.com", as: "olivia").status == 200)
        #expect(try harness.stored() == stored)
    }

    @Test func anInvitationNeverLowersAGrantAndSkipsADeletedDocument() throws {
        let harness = try Harness()
        try harness.directory.create("gone", owner: "olivia")
        _ = harness.send(.put, "/v1/documents/gone/permissions", as: "olivia", body: #"{"email":"rita@example.com","role":"read-write"}"#)
        _ = harness.send(.put, "/v1/documents/doc/permissions", as: "olivia", body: #"{"email":"rita@example.com","role":"reader"}"#)
        try harness.directory.delete("gone")
        // The deleted document's entry left the address's index with it.
        #expect(try harness.directory.access.invitations.documents(invitedAs: Self.email("rita@example.com")) == ["doc"])
        _ = try harness.directory.signIn(user: "wes", email: Self.email("rita@example.com"))
        // wes had read-write; a reader invitation keeps it.
        #expect(try harness.directory.access.role(of: "wes", on: "doc") == .readWrite)
    }

    @Test func grantsRacingTheFirstSignInAllEndAsGrants() throws {
        let harness = try Harness()
        let ids = (0..<40).map { "race-\($0)" }
        for id in ids { try harness.directory.create(DocumentID(validating: id), owner: "olivia") }
        let address = try Self.email("kim@example.com")
        // Every grant either lands as a pending invitation the sign-in then redeems, or
        // finds the address claimed and grants at once: none may be left pending.
        DispatchQueue.concurrentPerform(iterations: ids.count + 1) { index in
            if index == ids.count / 2 {
                _ = try? harness.directory.signIn(user: "kim", email: address)
            } else {
                let id = ids[index < ids.count / 2 ? index : index - 1]
                _ = harness.send(.put, "/v1/documents/\(id)/permissions", as: "olivia", body: #"{"email":"kim@example.com","role":"reader"}"#)
            }
        }
        for id in ids {
            let row = try #require(try harness.directory.access.access(DocumentID(validating: id)))
            #expect(row.members["kim"] == .reader && row.invitations == nil, "\(id)")
        }
        #expect(try harness.directory.access.invitations.documents(invitedAs: address).isEmpty)
    }

    @Test func malformedAddressesAreRefusedAndChangeNothing() throws {
        let harness = try Harness()
        let before = try harness.stored()
        let long = String(repeating: "a", count: 250) + "@example.com"
        for address in ["", "bob", "bob@", "@example.com", "bob@example", "a@@example.com", "a b@example.com",
                        "bob@exa mple.com", "bob@-example.com", "<bob>@example.com", ".bob@example.com", long,
                        "bob@example..com"] {
            let body = #"{"email":"\#(address)","role":"reader"}"#
            let response = harness.send(.put, "/v1/documents/doc/permissions", as: "olivia", body: body)
            #expect(response.status == 400 && Self.code(response) == "INVALID_EMAIL", "\(address)")
            let removal = harness.send(.delete, "/v1/documents/doc/permissions", as: "olivia", body: #"{"email":"\#(address)"}"#)
            #expect(Self.code(removal) == "INVALID_EMAIL", "\(address)")
        }
        for body in [#"{"email":"a@example.com","user":"bob","role":"reader"}"#, #"{"role":"reader"}"#,
                     #"{"email":"a@example.com","role":"owner"}"#, #"{"email":7,"role":"reader"}"#,
                     #"{"email":"a@example.com","role":"reader","sendEmail":"yes"}"#] {
            let response = harness.send(.put, "/v1/documents/doc/permissions", as: "olivia", body: body)
            #expect(response.status == 400, "\(body)")
        }
        #expect(try harness.stored() == before)
    }

    @Test func aRootDocumentTakesNoInvitation() throws {
        let harness = try Harness()
        let root = try harness.directory.rootDocument(of: "olivia").id
        let before = try harness.stored()
        let response = harness.send(
            .put, "/v1/documents/\(root.rawValue)/permissions", as: "olivia", body: #"{"email":"bob@example.com","role":"reader"}"#)
        #expect(Self.code(response) == "ROOT_DOCUMENT_PROTECTED")
        #expect(try harness.stored() == before)
    }

    @Test func sendEmailQueuesAShareNotification() throws {
        let harness = try Harness()
        _ = harness.send(
            .put, "/v1/documents/doc/permissions", as: "olivia",
            body: #"{"email":"Bob@example.com","role":"reader","sendEmail":true,"documentUrl":"https://app.example/d/doc"}"#)
        _ = harness.send(.put, "/v1/documents/doc/permissions", as: "olivia", body: #"{"user":"zoe","role":"reader","sendEmail":true}"#)
        _ = harness.send(.put, "/v1/documents/doc/permissions", as: "olivia", body: #"{"user":"yan","role":"reader"}"#)
        let pending = harness.outbox.pending.map(\.notification)
        #expect(pending.map(\.type) == ["share", "share"])
        #expect(pending[0].toEmail == "bob@example.com" && pending[0].toUser == nil && pending[0].documentUrl == "https://app.example/d/doc")
        #expect(pending[1].toUser == "zoe" && pending[1].from == "olivia" && pending[1].permission == .reader)
        #expect(Set(pending.map(\.id)).count == 2)
    }

    @Test func accessRequestOutcomesNotifyTheRequester() throws {
        let harness = try Harness()
        let asked = Self.json(harness.send(.post, "/v1/documents/doc/access-requests", as: "sam", body: #"{"permission":"reader"}"#))
        let other = Self.json(harness.send(.post, "/v1/documents/doc/access-requests", as: "max", body: #"{"permission":"read-write"}"#))
        _ = harness.send(.post, "/v1/documents/doc/access-requests/\(asked["id"] as? String ?? "")/approve", as: "olivia")
        _ = harness.send(
            .post, "/v1/documents/doc/access-requests/\(other["id"] as? String ?? "")/deny", as: "olivia",
            body: #"{"documentUrl":"https://app.example/d/doc"}"#)
        let pending = harness.outbox.pending.map(\.notification)
        #expect(pending.map(\.type) == ["access-request-approved", "access-request-denied"])
        #expect(pending.map(\.toUser) == ["sam", "max"])
        #expect(pending[1].documentUrl == "https://app.example/d/doc" && pending[1].permission == .readWrite)
        #expect(pending[0].accessRequest == asked["id"] as? String)
    }

    // MARK: Authorization matrix

    enum Caller: String, CaseIterable, Sendable {
        case owner, readWrite, reader, linkViewer, groupMember, collectionMember, admin, stranger, noToken
        var user: String? {
            switch self {
            case .owner: "olivia"
            case .readWrite: "wes"
            case .reader: "rita"
            case .linkViewer: "lena"
            case .groupMember: "gus"
            case .collectionMember: "cora"
            case .admin: "ada"
            case .stranger: "zoe"
            case .noToken: nil
            }
        }
    }

    enum Route: String, CaseIterable, Sendable {
        case inviteByEmail, cancelByEmail, listInvitations

        /// Owner only; the others are refused by role (the groups admin has none on the
        /// document), without a token by 401.
        func expected(_ caller: Caller) -> (status: Int, code: String?, changes: Bool) {
            switch caller {
            case .noToken: (401, "UNAUTHENTICATED", false)
            case .owner: (200, nil, self != .listInvitations)
            case .stranger, .admin: (403, "DOC_ACCESS_DENIED", false)
            default: (403, "PERMISSION_DENIED", false)
            }
        }
    }

    @Test(arguments: Route.allCases)
    func everyCallerOfEveryRoute(_ route: Route) throws {
        for caller in Caller.allCases {
            let harness = try Harness(linkAccess: caller == .linkViewer)
            let before = try harness.stored()
            let response: HTTPResponse
            switch route {
            case .inviteByEmail:
                response = harness.send(
                    .put, "/v1/documents/doc/permissions", as: caller.user,
                    body: #"{"email":"new@example.com","role":"reader","sendEmail":true}"#)
            case .cancelByEmail:
                response = harness.send(.delete, "/v1/documents/doc/permissions?email=ann@example.com", as: caller.user)
            case .listInvitations:
                response = harness.send(.get, "/v1/documents/doc/invitations", as: caller.user)
            }
            let expected = route.expected(caller)
            #expect(response.status == expected.status, "\(route) by \(caller): \(String(decoding: response.body, as: UTF8.self))")
            #expect(Self.code(response) == expected.code, "\(route) by \(caller)")
            if expected.changes {
                #expect(try harness.stored() != before, "\(route) by \(caller) changed nothing")
            } else {
                #expect(try harness.stored() == before, "\(route) by \(caller) changed stored state")
            }
        }
    }

    @Test func theInvitationsRouteAnswersOnlyGet() throws {
        let harness = try Harness()
        let response = harness.send(.put, "/v1/documents/doc/invitations", as: "olivia", body: "{}")
        #expect(response.status == 405 && response.headers.first { $0.name == "allow" }?.value == "GET")
        #expect(Self.code(harness.send(.get, "/v1/documents/nope/invitations", as: "olivia")) == "DOCUMENT_NOT_FOUND")
        // A document id may not end in the reserved suffix.
        #expect(throws: AccordError.self) { try harness.directory.create("x/invitations", owner: "olivia") }
    }

    // MARK: Tokens

    @Test func aTokenCarriesANormalizedEmailAndAMalformedOneIsRefused() throws {
        let authority = try TokenAuthority(secret: Array("invitations-test-secret-0123456789abcdef".utf8))
        let token = authority.mint(subject: "bob", ttl: 60, email: try Self.email(" Bob@Example.com"))
        #expect(try authority.verify(token).email?.rawValue == "bob@example.com")
        #expect(try authority.verify(authority.mint(subject: "bob", ttl: 60)).email == nil)
        let now = Int(Date().timeIntervalSince1970) + 60
        for claim in [#""email":"not-an-address""#, #""email":7"#] {
            let forged = authority.signed(
                headerJSON: TokenAuthority.headerJSON, payloadJSON: Array(#"{"sub":"bob","exp":\#(now),\#(claim)}"#.utf8))
            #expect(throws: AccordError.self) { try authority.verify(forged) }
        }
    }
}

/// The directory changes a test API reported, from any thread.
final class ReportedChanges: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `changes` is only touched under `lock`.
    private let lock = NSLock()
    private var changes: [DirectoryChange] = []
    func append(_ change: DirectoryChange) { lock.withLock { changes.append(change) } }
    var all: [DirectoryChange] { lock.withLock { changes } }
}
