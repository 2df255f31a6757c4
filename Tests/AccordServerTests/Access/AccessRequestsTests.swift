import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordNet
@testable import AccordServer

/// Access requests (`docs/server-api.md`, Access requests): asking, re-asking while
/// pending, approving and denying once, the 30-day expiry, `canRequestAccess` on a
/// refusal, and every caller × every route with the stored rows compared.
@Suite struct AccessRequestsTests {
    /// A DocumentsAPI over an in-memory store with a clock the test moves. "olivia" owns
    /// "doc"; "wes" read-write, "rita" reader; with `linkAccess`, link reader ("lena");
    /// team/design ("gus") reader; "sam" asked for read-write already (request `pending`).
    final class Harness: @unchecked Sendable {
        let documents = DocumentStore(storage: .inMemory())
        let directory: DocumentDirectory
        let api: DocumentsAPI
        private let clock = TestClock()
        var pending = ""

        var now: Date {
            get { clock.time }
            set { clock.time = newValue }
        }

        init(linkAccess: Bool = false) throws {
            directory = DocumentDirectory(documents: documents, access: AccessStore(storage: documents.storage))
            let clock = clock
            api = DocumentsAPI(
                directory: directory,
                authenticate: { request throws(AccordError) in
                    guard let user = request.header("x-test-user") else { throw AccordError(.unauthenticated, "none") }
                    return user
                },
                accessChanged: { _ in }, now: { clock.time })
            try directory.create("doc", owner: "olivia")
            _ = send(.put, "/v1/documents/doc/permissions", as: "olivia", body: #"{"user":"wes","role":"read-write"}"#)
            _ = send(.put, "/v1/documents/doc/permissions", as: "olivia", body: #"{"user":"rita","role":"reader"}"#)
            if linkAccess { _ = send(.put, "/v1/documents/doc/link-access", as: "olivia", body: #"{"role":"reader"}"#) }
            try directory.access.groups.update(GroupKey(groupType: "team", groupID: "design"), adding: ["gus"])
            _ = send(.put, "/v1/documents/doc/groups", as: "olivia", body: #"{"groupType":"team","groupId":"design","role":"reader"}"#)
            let asked = send(.post, "/v1/documents/doc/access-requests", as: "sam", body: #"{"permission":"read-write"}"#)
            pending = (try JSONSerialization.jsonObject(with: Data(asked.body)) as? [String: Any])?["id"] as? String ?? ""
        }

        func send(_ method: HTTPMethod, _ path: String, as user: String?, body: String? = nil) -> HTTPResponse {
            var headers: [String: String] = [:]
            if let user { headers["x-test-user"] = user }
            return api.respond(to: HTTPRequest(method: method, path: path, headers: headers, body: Array((body ?? "").utf8)))
        }

        func stored() throws -> [String: [String: [UInt8]]] {
            try documents.storage.withAdapter { adapter in
                var state: [String: [String: [UInt8]]] = [:]
                for name in ["server.access", "server.access-request", "server.details", "doc.meta"] {
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

    enum Caller: String, CaseIterable, Sendable {
        case owner, readWrite, reader, linkViewer, groupMember, stranger, noToken
        var user: String? {
            switch self {
            case .owner: "olivia"
            case .readWrite: "wes"
            case .reader: "rita"
            case .linkViewer: "lena"
            case .groupMember: "gus"
            case .stranger: "zoe"
            case .noToken: nil
            }
        }
    }

    enum Route: String, CaseIterable, Sendable {
        case request, list, approve, deny

        func expected(_ caller: Caller) -> (status: Int, code: String?, changes: Bool) {
            if caller == .noToken { return (401, "UNAUTHENTICATED", false) }
            switch self {
            case .request:  // read-write
                return caller == .owner || caller == .readWrite ? (400, "INVALID_ARGUMENT", false) : (201, nil, true)
            case .list, .approve, .deny:
                switch caller {
                case .owner: return (200, nil, self != .list)
                case .stranger: return (403, "DOC_ACCESS_DENIED", false)
                default: return (403, "PERMISSION_DENIED", false)
                }
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
            case .request:
                response = harness.send(.post, "/v1/documents/doc/access-requests", as: caller.user, body: #"{"permission":"read-write"}"#)
            case .list: response = harness.send(.get, "/v1/documents/doc/access-requests", as: caller.user)
            case .approve: response = harness.send(.post, "/v1/documents/doc/access-requests/\(harness.pending)/approve", as: caller.user)
            case .deny: response = harness.send(.post, "/v1/documents/doc/access-requests/\(harness.pending)/deny", as: caller.user)
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

    @Test func askApproveOnceDenyOnceAndExpire() throws {
        let harness = try Harness()
        // A refusal says access may be requested.
        let refused = harness.send(.get, "/v1/documents/doc", as: "max")
        #expect(Self.code(refused) == "DOC_ACCESS_DENIED")
        #expect((Self.json(refused)["error"] as? [String: Any]).flatMap { $0["details"] as? [String: String] }?["canRequestAccess"] == "true")

        let asked = harness.send(.post, "/v1/documents/doc/access-requests", as: "max", body: #"{"permission":"reader","message":"please"}"#)
        #expect(asked.status == 201)
        let id = Self.json(asked)["id"] as? String
        // Asking again while pending updates the same request.
        let again = harness.send(.post, "/v1/documents/doc/access-requests", as: "max", body: #"{"permission":"read-write"}"#)
        #expect(again.status == 200 && Self.json(again)["id"] as? String == id && Self.json(again)["permission"] as? String == "read-write")
        let listed = Self.json(harness.send(.get, "/v1/documents/doc/access-requests", as: "olivia"))["requests"] as? [[String: Any]]
        #expect(listed?.map { $0["user"] as? String } == ["sam", "max"])

        let approved = harness.send(.post, "/v1/documents/doc/access-requests/\(id ?? "")/approve", as: "olivia")
        #expect(approved.status == 200 && Self.json(approved)["status"] as? String == "approved")
        #expect(try harness.directory.access.role(of: "max", on: "doc") == .readWrite)
        let twice = harness.send(.post, "/v1/documents/doc/access-requests/\(id ?? "")/deny", as: "olivia")
        #expect(twice.status == 409 && Self.code(twice) == "ACCESS_REQUEST_RESOLVED")

        let denied = harness.send(.post, "/v1/documents/doc/access-requests/\(harness.pending)/deny", as: "olivia")
        #expect(Self.json(denied)["status"] as? String == "denied")
        #expect(try harness.directory.access.role(of: "sam", on: "doc") == nil)

        // 30 days and a bit later a pending request has expired and cannot be decided.
        let late = Self.json(harness.send(.post, "/v1/documents/doc/access-requests", as: "ann", body: #"{"permission":"reader"}"#))["id"] as? String
        harness.now = harness.now.addingTimeInterval(30 * 24 * 3600 + 1)
        let before = try harness.stored()
        let expired = harness.send(.post, "/v1/documents/doc/access-requests/\(late ?? "")/approve", as: "olivia")
        #expect(Self.code(expired) == "ACCESS_REQUEST_RESOLVED")
        #expect((Self.json(expired)["error"] as? [String: Any]).flatMap { $0["details"] as? [String: String] }?["status"] == "expired")
        #expect(try harness.stored() == before)
        #expect(Self.code(harness.send(.post, "/v1/documents/doc/access-requests/nope/approve", as: "olivia")) == "ACCESS_REQUEST_NOT_FOUND")
        // A new request after expiry is a new one.
        #expect(harness.send(.post, "/v1/documents/doc/access-requests", as: "ann", body: #"{"permission":"reader"}"#).status == 201)
        #expect(Self.code(harness.send(.post, "/v1/documents/doc/access-requests", as: "ann", body: #"{"permission":"owner"}"#)) == "INVALID_ARGUMENT")
    }

    @Test func aRootDocumentAcceptsNoRequests() throws {
        let harness = try Harness()
        let root = try harness.directory.rootDocument(of: "olivia").id
        let refused = harness.send(.get, "/v1/documents/\(root.rawValue)", as: "max")
        #expect((Self.json(refused)["error"] as? [String: Any]).flatMap { $0["details"] as? [String: String] }?["canRequestAccess"] == "false")
        let asked = harness.send(.post, "/v1/documents/\(root.rawValue)/access-requests", as: "max", body: #"{"permission":"reader"}"#)
        #expect(Self.code(asked) == "ROOT_DOCUMENT_PROTECTED")
    }
}

/// A clock the test sets, read from any thread.
private final class TestClock: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = Date(timeIntervalSince1970: 1_700_000_000)
    var time: Date {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
