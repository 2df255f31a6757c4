import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordNet
import AccordServer

/// Every caller × every REST call: the status, the error code, whether `accessChanged`
/// fired, that a success did what it says, and that a refusal changed no stored byte.
@Suite struct DocumentsAPIAuthorizationTests {
    /// Who calls, and the document's access row around them. "olivia" owns
    /// "team/notes"; "rita" has a reader grant and "wes" a read-write grant.
    enum Subject: String, CaseIterable, Sendable {
        case none, reader, readWrite, owner, linkReader, linkReadWrite

        var user: String {
            switch self {
            case .none: "nobody"
            case .reader: "rita"
            case .readWrite: "wes"
            case .owner: "olivia"
            case .linkReader, .linkReadWrite: "lena"
            }
        }

        var floor: Role? {
            switch self {
            case .linkReader: .reader
            case .linkReadWrite: .readWrite
            default: nil
            }
        }
    }

    enum Call: String, CaseIterable, Sendable {
        case create, getDocument, getPermissions, grant, revoke, setLinkAccess, removeLinkAccess, getLinkAccess
        case updateDocument, deleteDocument, transferOwner
    }

    enum Outcome: Equatable {
        /// 200 or 201; `changed`: the access row changed, so `accessChanged` fired.
        case ok(changed: Bool)
        /// 403 DOC_ACCESS_DENIED: no role at all.
        case noAccess
        /// 403 PERMISSION_DENIED: a role, but too low.
        case tooLow
    }

    static let id: DocumentID = "team/notes"
    static let base = "/v1/documents/team/notes"

    /// The oracle, written out by hand rather than computed from roles.
    static let expected: [Subject: [Call: Outcome]] = {
        let ok = Outcome.ok(changed: false), changed = Outcome.ok(changed: true)
        func row(_ outcomes: [Outcome]) -> [Call: Outcome] {
            Dictionary(uniqueKeysWithValues: zip(Call.allCases, outcomes))
        }
        let none = Outcome.noAccess, low = Outcome.tooLow
        //               create getDoc getPerm grant   revoke  setLink rmLink getLink update delete  owner
        return [
            .none: row([ok, none, none, none, none, none, none, none, none, none, none]),
            .reader: row([ok, ok, low, low, low, low, low, ok, low, low, low]),
            .readWrite: row([ok, ok, low, low, low, changed, ok, ok, ok, low, low]),
            .owner: row([ok, ok, ok, changed, changed, changed, ok, ok, ok, changed, changed]),
            .linkReader: row([ok, ok, low, low, low, low, low, ok, low, low, low]),
            .linkReadWrite: row([ok, ok, low, low, low, changed, changed, ok, ok, low, low]),
        ]
    }()

    static func fixture(_ subject: Subject) throws -> RESTHarness {
        let harness = RESTHarness()
        try harness.directory.create(id, owner: "olivia", title: "Notes", tags: ["team"])
        var access = DocumentAccess(owner: "olivia")
        access.members = ["rita": .reader, "wes": .readWrite]
        access.linkAccess = subject.floor
        try harness.directory.access.setAccess(access, for: id)
        return harness
    }

    /// The floor a PUT sets: always a different one, so a success is a change.
    static func newFloor(for subject: Subject) -> Role {
        subject.floor == .readWrite ? .reader : .readWrite
    }

    static func send(_ call: Call, as subject: Subject?, to harness: RESTHarness) -> HTTPResponse {
        let user = subject?.user
        let floor = subject.map(newFloor(for:)) ?? .readWrite
        switch call {
        case .create:
            return harness.send(.post, "/v1/documents", as: user, body: #"{"id":"fresh","title":"T"}"#)
        case .getDocument:
            return harness.send(.get, base, as: user)
        case .getPermissions:
            return harness.send(.get, base + "/permissions", as: user)
        case .grant:
            return harness.send(.put, base + "/permissions", as: user, body: #"{"user":"zoe","role":"read-write"}"#)
        case .revoke:
            return harness.send(.delete, base + "/permissions", as: user, query: [QueryItem(name: "user", value: "rita")])
        case .setLinkAccess:
            return harness.send(.put, base + "/link-access", as: user, body: #"{"role":"\#(floor.rawValue)"}"#)
        case .removeLinkAccess:
            return harness.send(.delete, base + "/link-access", as: user)
        case .getLinkAccess:
            return harness.send(.get, base + "/link-access", as: user)
        case .updateDocument:
            return harness.send(
                .patch, base, as: user, body: #"{"title":"Renamed","metadata":{"color":"red"},"thumbnailBlobId":"b1"}"#)
        case .deleteDocument:
            return harness.send(.delete, base, as: user)
        case .transferOwner:
            return harness.send(.put, base + "/owner", as: user, body: #"{"user":"wes"}"#)
        }
    }

    @Test(arguments: Subject.allCases, Call.allCases)
    func matrix(_ subject: Subject, _ call: Call) throws {
        let harness = try Self.fixture(subject)
        let before = try harness.storedState()
        let response = Self.send(call, as: subject, to: harness)
        let outcome = try #require(Self.expected[subject]?[call])
        #expect(response.contentType == "application/json")

        switch outcome {
        case .ok(let changed):
            #expect(response.status == (call == .create ? 201 : 200), "\(response.text)")
            #expect(response.errorCode == nil)
            #expect(harness.changes.all == (changed ? [Self.id] : []))
            try Self.checkEffect(of: call, by: subject, response: response, harness: harness, before: before)
        case .noAccess, .tooLow:
            #expect(response.status == 403)
            #expect(response.errorCode == (outcome == .noAccess ? "DOC_ACCESS_DENIED" : "PERMISSION_DENIED"))
            #expect(harness.changes.all.isEmpty)
            #expect(try harness.storedState() == before)
        }
    }

    /// What a successful call must have done (and reads must not have written).
    static func checkEffect(
        of call: Call, by subject: Subject, response: HTTPResponse, harness: RESTHarness,
        before: [String: [String: [UInt8]]]
    ) throws {
        if call == .deleteDocument {
            #expect(try !harness.directory.documents.contains(id))
            #expect(try harness.directory.access.access(id) == nil)
            #expect(response.object["deleted"] as? Bool == true)
            return
        }
        let access = try #require(try harness.directory.access.access(id))
        switch call {
        case .create:
            #expect(try (harness.directory.access.access("fresh")?.unlisted) == DocumentAccess(owner: subject.user))
            #expect(try harness.documents.metadata("fresh").title == "T")
            var unchanged = try harness.storedState()
            unchanged["server.access"]?["fresh"] = nil
            unchanged["doc.meta"]?["fresh"] = nil
            unchanged["server.owned"]?[subject.user] = before["server.owned"]?[subject.user]  // the new listing entry
            #expect(unchanged == before)
        case .getDocument:
            let effective: [Subject: String] = [
                .reader: "reader", .readWrite: "read-write", .owner: "owner", .linkReader: "reader",
                .linkReadWrite: "read-write",
            ]
            #expect(response.object["permission"] as? String == effective[subject])
            #expect(response.object["id"] as? String == id.rawValue)
            #expect(try harness.storedState() == before)
        case .getPermissions:
            #expect(response.object["owner"] as? String == "olivia")
            #expect(try harness.storedState() == before)
        case .grant:
            #expect(access.members["zoe"] == .readWrite)
            #expect(access.members["rita"] == .reader)
        case .revoke:
            #expect(access.members["rita"] == nil)
            #expect(access.members["wes"] == .readWrite)
        case .setLinkAccess:
            #expect(access.linkAccess == newFloor(for: subject))
            #expect(access.linkAccessChangedBy == subject.user)
            #expect(response.object["linkAccess"] as? String == newFloor(for: subject).rawValue)
            #expect(response.object["changedBy"] as? String == subject.user)
            #expect(response.object["changedAt"] is String)
        case .removeLinkAccess:
            #expect(access.linkAccess == nil)
            #expect(response.object["linkAccess"] is NSNull)
            if subject.floor == nil {
                #expect(try harness.storedState() == before)
                #expect(response.object["changedBy"] is NSNull)
            } else {
                #expect(response.object["changedBy"] as? String == subject.user)
            }
        case .getLinkAccess:
            #expect(response.object["linkAccess"] as? String == subject.floor?.rawValue)
            #expect(try harness.storedState() == before)
        case .updateDocument:
            #expect(try harness.documents.metadata(id).title == "Renamed")
            #expect(try harness.directory.details(id) == DocumentDetails(metadata: #"{"color":"red"}"#, thumbnailBlobID: "b1"))
            #expect(response.object["title"] as? String == "Renamed")
            #expect((response.object["metadata"] as? [String: Any])?["color"] as? String == "red")
            #expect(response.object["owner"] as? String == "olivia")
        case .deleteDocument:
            break  // checked above
        case .transferOwner:
            #expect(access.owner == "wes")
            #expect(access.members == ["olivia": .readWrite, "rita": .reader])
            #expect(response.object["owner"] as? String == "wes")
            return
        }
        #expect(access.owner == "olivia")
    }

    @Test(arguments: Call.allCases)
    func withoutCredentialsEveryCallIsUnauthenticated(_ call: Call) throws {
        let harness = try Self.fixture(.linkReadWrite)
        let before = try harness.storedState()
        let response = Self.send(call, as: nil, to: harness)
        #expect(response.status == 401)
        #expect(response.errorCode == "UNAUTHENTICATED")
        #expect(harness.changes.all.isEmpty)
        #expect(try harness.storedState() == before)
    }

    /// The table covers every cell, so a new subject or call must be given its outcomes.
    @Test func theOracleIsComplete() {
        for subject in Subject.allCases {
            #expect(Set(Self.expected[subject].map { Array($0.keys) } ?? []) == Set(Call.allCases), "\(subject)")
        }
    }
}
