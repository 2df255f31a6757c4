import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordNet
import AccordServer

/// The REST calls' bodies, validation and edge cases (who may call what is in
/// DocumentsAPIAuthorizationTests).
@Suite struct DocumentsAPITests {
    let harness = RESTHarness()

    /// Sends a request that must be refused with `status` and `code` and change nothing.
    func expectRefused(
        _ method: HTTPMethod, _ path: String, as user: String = "olivia", body: String? = nil,
        query: [QueryItem] = [], status: Int, code: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try harness.storedState()
        let response = harness.send(method, path, as: user, body: body, query: query)
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.errorCode == code, "\(response.text)", sourceLocation: sourceLocation)
        #expect(try harness.storedState() == before, sourceLocation: sourceLocation)
        #expect(harness.changes.all.isEmpty, sourceLocation: sourceLocation)
    }

    // MARK: POST /v1/documents

    @Test func createAnswers201WithTheDocumentBody() throws {
        let response = harness.send(
            .post, "/v1/documents", as: "olivia", body: #"{"id":"team/notes","title":"Notes","tags":["a","b"]}"#)
        #expect(response.status == 201)
        #expect(response.contentType == "application/json")
        #expect(
            response.text
                == #"{"created":"2023-11-14T22:13:20.250Z","id":"team/notes","metadata":null,"owner":"olivia","#
                + #""permission":"owner","size":0,"tags":["a","b"],"thumbnailBlobId":null,"title":"Notes","#
                + #""updated":"2023-11-14T22:13:20.250Z"}"#)
        #expect(try (harness.directory.access.access("team/notes")?.unlisted) == DocumentAccess(owner: "olivia"))
        #expect(harness.changes.all.isEmpty)
    }

    @Test func createWithoutAnIDGeneratesAURLSafeOne() throws {
        var ids: Set<String> = []
        for _ in 0..<50 {
            let response = harness.send(.post, "/v1/documents", as: "olivia", body: "{}")
            #expect(response.status == 201)
            let id = try #require(response.object["id"] as? String)
            #expect(id.utf8.count == 22)
            #expect(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }, "\(id)")
            #expect(response.object["title"] as? String == "")
            #expect(response.object["tags"] as? [String] == [])
            #expect(harness.send(.get, "/v1/documents/" + id, as: "olivia").status == 200)
            ids.insert(id)
        }
        #expect(ids.count == 50)
    }

    @Test func createWithATakenIDIsConflict() throws {
        #expect(harness.send(.post, "/v1/documents", as: "olivia", body: #"{"id":"notes"}"#).status == 201)
        try expectRefused(.post, "/v1/documents", as: "mallory", body: #"{"id":"notes","title":"mine"}"#,
                          status: 409, code: "DOCUMENT_EXISTS")
        #expect(try harness.directory.access.access("notes")?.owner == "olivia")
    }

    @Test(arguments: [
        ("", "MALFORMED_JSON"),
        ("not json", "MALFORMED_JSON"),
        (#"{"id":"a""#, "MALFORMED_JSON"),
        ("[]", "INVALID_ARGUMENT"),
        (#""notes""#, "INVALID_ARGUMENT"),
        ("null", "INVALID_ARGUMENT"),
        (#"{"id":""}"#, "INVALID_ARGUMENT"),
        (#"{"id":"tab\there"}"#, "INVALID_ARGUMENT"),
        (#"{"id":5}"#, "INVALID_ARGUMENT"),
        (#"{"id":null}"#, "INVALID_ARGUMENT"),
        (#"{"id":"a/permissions"}"#, "INVALID_ARGUMENT"),
        (#"{"id":"a/link-access"}"#, "INVALID_ARGUMENT"),
        (#"{"title":true}"#, "INVALID_ARGUMENT"),
        (#"{"tags":"a"}"#, "INVALID_ARGUMENT"),
        (#"{"tags":["a",1]}"#, "INVALID_ARGUMENT"),
        (#"{"tags":[""]}"#, "INVALID_ARGUMENT"),
        (#"{"name":"x"}"#, "INVALID_ARGUMENT"),
    ])
    func createRefusesBadBodies(_ body: String, _ code: String) throws {
        try expectRefused(.post, "/v1/documents", body: body, status: 400, code: code)
        #expect(try harness.documents.documents().isEmpty)
    }

    @Test func createBoundsTheBodyTitleAndTags() throws {
        let longID = String(repeating: "i", count: 257)
        try expectRefused(.post, "/v1/documents", body: #"{"id":"\#(longID)"}"#, status: 400, code: "INVALID_ARGUMENT")
        let longTitle = String(repeating: "t", count: 1025)
        try expectRefused(.post, "/v1/documents", body: #"{"title":"\#(longTitle)"}"#, status: 400, code: "INVALID_ARGUMENT")
        let manyTags = (0...64).map { "\"t\($0)\"" }.joined(separator: ",")
        try expectRefused(.post, "/v1/documents", body: #"{"tags":[\#(manyTags)]}"#, status: 400, code: "INVALID_ARGUMENT")
        let longTag = String(repeating: "g", count: 257)
        try expectRefused(.post, "/v1/documents", body: #"{"tags":["\#(longTag)"]}"#, status: 400, code: "INVALID_ARGUMENT")
        let padding = String(repeating: " ", count: 64 * 1024)
        try expectRefused(.post, "/v1/documents", body: #"{"id":"big"}"# + padding, status: 400, code: "INVALID_ARGUMENT")
        // The limits themselves are allowed.
        let maxTitle = String(repeating: "t", count: 1024)
        let maxTags = (0..<64).map { "\"\($0)\"" }.joined(separator: ",")
        let edge = #"{"title":"\#(maxTitle)","tags":[\#(maxTags)]}"#
        #expect(harness.send(.post, "/v1/documents", as: "olivia", body: edge).status == 201)
    }

    // MARK: GET /v1/documents/{id}

    @Test func getShowsTheMetadataAndTheCallersRole() throws {
        try harness.directory.create("notes", owner: "olivia", title: "Notes", tags: ["x"])
        try harness.directory.access.setAccess(
            { var a = DocumentAccess(owner: "olivia"); a.linkAccess = .reader; a.members["wes"] = .readWrite; return a }(),
            for: "notes")
        let asLink = harness.send(.get, "/v1/documents/notes", as: "lena")
        #expect(asLink.status == 200)
        #expect(
            asLink.text
                == #"{"created":"2023-11-14T22:13:20.250Z","id":"notes","metadata":null,"owner":"olivia","#
                + #""permission":"reader","size":0,"tags":["x"],"thumbnailBlobId":null,"title":"Notes","#
                + #""updated":"2023-11-14T22:13:20.250Z"}"#)
        #expect(harness.send(.get, "/v1/documents/notes", as: "wes").object["permission"] as? String == "read-write")
        #expect(harness.send(.get, "/v1/documents/notes", as: "olivia").object["permission"] as? String == "owner")
    }

    /// Existence is not hidden: every signed-in caller gets 404 for a missing document,
    /// also one named in a row left behind by a deleted document.
    @Test func aMissingDocumentIsNotFoundForEveryone() throws {
        try harness.directory.access.setAccess(DocumentAccess(owner: "olivia"), for: "gone")
        for path in ["/v1/documents/gone", "/v1/documents/gone/permissions"] {
            try expectRefused(.get, path, status: 404, code: "DOCUMENT_NOT_FOUND")
            try expectRefused(.get, path, as: "stranger", status: 404, code: "DOCUMENT_NOT_FOUND")
        }
        try expectRefused(.put, "/v1/documents/gone/permissions", body: #"{"user":"bob","role":"reader"}"#,
                          status: 404, code: "DOCUMENT_NOT_FOUND")
        try expectRefused(.delete, "/v1/documents/gone/permissions", query: [QueryItem(name: "user", value: "bob")],
                          status: 404, code: "DOCUMENT_NOT_FOUND")
        try expectRefused(.put, "/v1/documents/gone/link-access", body: #"{"role":"reader"}"#,
                          status: 404, code: "DOCUMENT_NOT_FOUND")
        try expectRefused(.delete, "/v1/documents/gone/link-access", status: 404, code: "DOCUMENT_NOT_FOUND")
    }

    /// A document created straight in the store has no row: nobody may use it over REST.
    @Test func aDocumentWithoutARowIsDeniedToEveryone() throws {
        try harness.documents.create("legacy")
        try expectRefused(.get, "/v1/documents/legacy", status: 403, code: "DOC_ACCESS_DENIED")
        try expectRefused(.get, "/v1/documents/legacy/permissions", status: 403, code: "DOC_ACCESS_DENIED")
        try expectRefused(.put, "/v1/documents/legacy/link-access", body: #"{"role":"reader"}"#,
                          status: 403, code: "DOC_ACCESS_DENIED")
        try expectRefused(.delete, "/v1/documents/legacy/link-access", status: 403, code: "DOC_ACCESS_DENIED")
    }

    // MARK: Permissions

    @Test func permissionsBodyListsOwnerMembersAndFloor() throws {
        try harness.directory.create("notes", owner: "olivia")
        #expect(harness.send(.get, "/v1/documents/notes/permissions", as: "olivia").text
            == #"{"linkAccess":null,"members":{},"owner":"olivia"}"#)
        let granted = harness.send(
            .put, "/v1/documents/notes/permissions", as: "olivia", body: #"{"user":"rita","role":"reader"}"#)
        #expect(granted.status == 200)
        #expect(granted.text == #"{"linkAccess":null,"members":{"rita":"reader"},"owner":"olivia"}"#)
        _ = harness.send(.put, "/v1/documents/notes/link-access", as: "olivia", body: #"{"role":"read-write"}"#)
        #expect(harness.send(.get, "/v1/documents/notes/permissions", as: "olivia").text
            == #"{"linkAccess":"read-write","members":{"rita":"reader"},"owner":"olivia"}"#)
        #expect(harness.changes.all == ["notes", "notes"])
    }

    @Test func aGrantReplacesAnEarlierOneAndRepeatingItChangesNothing() throws {
        try harness.directory.create("notes", owner: "olivia")
        let path = "/v1/documents/notes/permissions"
        #expect(harness.send(.put, path, as: "olivia", body: #"{"user":"wes","role":"read-write"}"#).status == 200)
        #expect(harness.send(.put, path, as: "olivia", body: #"{"user":"wes","role":"reader"}"#).status == 200)
        #expect(try harness.directory.access.role(of: "wes", on: "notes") == .reader)
        #expect(harness.changes.all == ["notes", "notes"])
        let before = try harness.storedState()
        #expect(harness.send(.put, path, as: "olivia", body: #"{"user":"wes","role":"reader"}"#).status == 200)
        #expect(harness.changes.all == ["notes", "notes"])
        #expect(try harness.storedState() == before)
    }

    @Test(arguments: [
        (#"{"user":"bob","role":"owner"}"#, "INVALID_ARGUMENT"),
        (#"{"user":"olivia","role":"reader"}"#, "INVALID_ARGUMENT"),
        (#"{"user":"bob"}"#, "INVALID_ARGUMENT"),
        (#"{"role":"reader"}"#, "INVALID_ARGUMENT"),
        (#"{"user":"bob","role":"admin"}"#, "INVALID_ARGUMENT"),
        (#"{"user":"bob","role":"Reader"}"#, "INVALID_ARGUMENT"),
        (#"{"user":"","role":"reader"}"#, "INVALID_ARGUMENT"),
        (#"{"user":"a\u0000b","role":"reader"}"#, "INVALID_ARGUMENT"),
        (#"{"user":7,"role":"reader"}"#, "INVALID_ARGUMENT"),
        (#"{"user":"bob","role":"reader","note":"hi"}"#, "INVALID_ARGUMENT"),
        (#"["bob","reader"]"#, "INVALID_ARGUMENT"),
        ("", "MALFORMED_JSON"),
        ("{user:bob}", "MALFORMED_JSON"),
    ])
    func grantRefusesBadBodies(_ body: String, _ code: String) throws {
        try harness.directory.create("notes", owner: "olivia")
        try expectRefused(.put, "/v1/documents/notes/permissions", body: body, status: 400, code: code)
    }

    @Test func revokeTakesTheUserFromTheQueryOrTheBody() throws {
        try harness.directory.create("notes", owner: "olivia")
        var access = DocumentAccess(owner: "olivia")
        access.members = ["rita": .reader, "wes": .readWrite, "zoe": .reader]
        try harness.directory.access.setAccess(access, for: "notes")
        let path = "/v1/documents/notes/permissions"
        let byQuery = harness.send(.delete, path, as: "olivia", query: [QueryItem(name: "user", value: "rita")])
        #expect(byQuery.status == 200)
        #expect(byQuery.text == #"{"linkAccess":null,"members":{"wes":"read-write","zoe":"reader"},"owner":"olivia"}"#)
        #expect(harness.send(.delete, path, as: "olivia", body: #"{"user":"wes"}"#).status == 200)
        let both = harness.send(
            .delete, path, as: "olivia", body: #"{"user":"zoe"}"#, query: [QueryItem(name: "user", value: "zoe")])
        #expect(both.status == 200)
        #expect(try (harness.directory.access.access("notes")?.unlisted) == DocumentAccess(owner: "olivia"))
        #expect(harness.changes.all == ["notes", "notes", "notes"])
        // The revoked user is refused at once.
        #expect(harness.send(.get, "/v1/documents/notes", as: "rita").errorCode == "DOC_ACCESS_DENIED")
    }

    @Test func revokingSomeoneWithoutAGrantSucceedsAndChangesNothing() throws {
        try harness.directory.create("notes", owner: "olivia")
        let before = try harness.storedState()
        let response = harness.send(
            .delete, "/v1/documents/notes/permissions", as: "olivia", query: [QueryItem(name: "user", value: "nobody")])
        #expect(response.status == 200)
        #expect(harness.changes.all.isEmpty)
        #expect(try harness.storedState() == before)
    }

    @Test func revokeRefusesBadRequests() throws {
        try harness.directory.create("notes", owner: "olivia")
        try harness.directory.access.setAccess(
            { var a = DocumentAccess(owner: "olivia"); a.members["rita"] = .reader; return a }(), for: "notes")
        let path = "/v1/documents/notes/permissions"
        let rita = [QueryItem(name: "user", value: "rita")]
        try expectRefused(.delete, path, status: 400, code: "INVALID_ARGUMENT")
        let owner = [QueryItem(name: "user", value: "olivia")]
        try expectRefused(.delete, path, query: owner, status: 400, code: "INVALID_ARGUMENT")
        try expectRefused(.delete, path, body: #"{"user":"wes"}"#, query: rita, status: 400, code: "INVALID_ARGUMENT")
        try expectRefused(.delete, path, body: #"{"member":"rita"}"#, status: 400, code: "INVALID_ARGUMENT")
        try expectRefused(.delete, path, body: #"{}"#, status: 400, code: "INVALID_ARGUMENT")
        try expectRefused(.delete, path, body: "rita", query: rita, status: 400, code: "MALFORMED_JSON")
        try expectRefused(.delete, path, query: [QueryItem(name: "user", value: "")], status: 400, code: "INVALID_ARGUMENT")
    }

    // MARK: Link access

    @Test func linkAccessSetsAndRemovesTheFloor() throws {
        try harness.directory.create("notes", owner: "olivia")
        let path = "/v1/documents/notes/link-access"
        #expect(harness.send(.get, "/v1/documents/notes", as: "lena").errorCode == "DOC_ACCESS_DENIED")
        #expect(harness.send(.get, path, as: "olivia").text == #"{"changedAt":null,"changedBy":null,"linkAccess":null}"#)
        let set = harness.send(.put, path, as: "olivia", body: #"{"role":"reader"}"#)
        #expect(set.object["linkAccess"] as? String == "reader")
        #expect(set.object["changedBy"] as? String == "olivia")
        let changedAt = try #require(set.object["changedAt"] as? String)
        #expect(try Date(changedAt, strategy: .iso8601).timeIntervalSinceNow.magnitude < 60)
        #expect(harness.send(.get, path, as: "lena").text == set.text)
        #expect(harness.send(.get, "/v1/documents/notes", as: "lena").object["permission"] as? String == "reader")
        // Setting the level it already has keeps who set it and when.
        #expect(harness.send(.put, path, as: "olivia", body: #"{"role":"reader"}"#).text == set.text)
        let removed = harness.send(.delete, path, as: "olivia")
        #expect(removed.object["linkAccess"] is NSNull)
        #expect(removed.object["changedBy"] as? String == "olivia")
        #expect(harness.send(.get, "/v1/documents/notes", as: "lena").errorCode == "DOC_ACCESS_DENIED")
        #expect(harness.changes.all == ["notes", "notes"])
        // Removing a floor that is not set, or setting the one that is, changes nothing.
        let before = try harness.storedState()
        #expect(harness.send(.delete, path, as: "olivia").status == 200)
        #expect(harness.changes.all == ["notes", "notes"])
        #expect(try harness.storedState() == before)
    }

    @Test(arguments: [
        (#"{"role":"owner"}"#, "INVALID_ARGUMENT"),
        (#"{"role":"writer"}"#, "INVALID_ARGUMENT"),
        (#"{"role":null}"#, "INVALID_ARGUMENT"),
        (#"{}"#, "INVALID_ARGUMENT"),
        (#"{"role":"reader","user":"x"}"#, "INVALID_ARGUMENT"),
        ("reader", "MALFORMED_JSON"),
        ("", "MALFORMED_JSON"),
    ])
    func setLinkAccessRefusesBadBodies(_ body: String, _ code: String) throws {
        try harness.directory.create("notes", owner: "olivia")
        try expectRefused(.put, "/v1/documents/notes/link-access", body: body, status: 400, code: code)
    }

    // MARK: Authentication

    @Test func anInvalidUserFromAuthenticateIsUnauthenticated() throws {
        try harness.directory.create("notes", owner: "olivia")
        for user in ["", "a\nb", String(repeating: "u", count: 257)] {
            try expectRefused(.get, "/v1/documents/notes", as: user, status: 401, code: "UNAUTHENTICATED")
            try expectRefused(.post, "/v1/documents", as: user, body: "{}", status: 401, code: "UNAUTHENTICATED")
        }
    }

    /// Authentication answers before the id or the body are looked at.
    @Test func authenticationComesFirst() throws {
        try expectRefused(.get, "/v1/documents/", as: "olivia", status: 400, code: "INVALID_ARGUMENT")
        let response = harness.send(.get, "/v1/documents/", as: nil)
        #expect(response.status == 401)
        #expect(harness.send(.post, "/v1/documents", as: nil, body: "junk").errorCode == "UNAUTHENTICATED")
    }

    // MARK: Concurrency

    /// Grants read, change and write the row under one lock, so none is lost.
    @Test func concurrentGrantsAreAllKept() throws {
        try harness.directory.create("notes", owner: "olivia")
        let harness = harness
        DispatchQueue.concurrentPerform(iterations: 32) { i in
            let response = harness.send(
                .put, "/v1/documents/notes/permissions", as: "olivia", body: #"{"user":"u\#(i)","role":"reader"}"#)
            #expect(response.status == 200)
        }
        #expect(try harness.directory.access.access("notes")?.members.count == 32)
        #expect(harness.changes.all.count == 32)
    }
}
