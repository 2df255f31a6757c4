import Foundation
import Testing
import AccordCRDT
import AccordStore
@testable import AccordNet
import AccordServer

/// `GET /v1/me/documents` and `/v1/me/shared`: opaque cursors that page through every
/// document exactly once while documents are added, shared, given away and deleted.
@Suite struct DirectoryListingTests {
    let harness = RESTHarness()
    let routes: HTTPRoutes

    init() {
        var routes = HTTPRoutes()
        harness.api.register(in: &routes)
        self.routes = routes
    }

    private func get(_ query: [QueryItem], as user: String?, path: String = "/v1/me/documents") -> HTTPResponse {
        var headers: [String: String] = [:]
        if let user { headers["x-test-user"] = user }
        return routes.respond(to: HTTPRequest(method: .get, path: path, query: query, headers: headers))
    }

    /// Every id on every page, following cursors, running `between` after each page.
    private func pageThrough(
        _ user: String, limit: Int, tag: String? = nil, path: String = "/v1/me/documents",
        between: (Int) throws -> Void = { _ in }
    ) throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        var page = 0
        repeat {
            var query = [QueryItem(name: "limit", value: String(limit))]
            if let cursor { query.append(QueryItem(name: "cursor", value: cursor)) }
            if let tag { query.append(QueryItem(name: "tag", value: tag)) }
            let response = get(query, as: user, path: path)
            #expect(response.status == 200, "\(response.text)")
            let documents = try #require(response.object["documents"] as? [[String: Any]])
            #expect(documents.count <= limit)
            ids += documents.compactMap { $0["id"] as? String }
            if path == "/v1/me/documents" {
                #expect(documents.allSatisfy { $0["permission"] as? String == "owner" })
            } else {
                #expect(documents.allSatisfy { $0["source"] as? String == "direct" && $0["grantedBy"] is String })
            }
            cursor = response.object["nextCursor"] as? String
            try between(page)
            page += 1
        } while cursor != nil && page < 100
        return ids
    }

    @Test func pagesListEveryDocumentOnceWhileDocumentsAreAdded() throws {
        for index in 0..<120 { try harness.directory.create(DocumentID(rawValue: "d\(index)")!, owner: "olivia") }
        try harness.directory.create("other", owner: "rita")
        var added: [String] = []
        let ids = try pageThrough("olivia", limit: 50) { page in
            // New documents after each page: they come after everything listed so far.
            let id = "new\(page)"
            try harness.directory.create(DocumentID(rawValue: id)!, owner: "olivia")
            added.append(id)
        }
        // The last one was added after the final page.
        #expect(added.count == 3)
        #expect(ids == (0..<120).map { "d\($0)" } + added.dropLast())
        #expect(!ids.contains("other"))
    }

    @Test func transferredAndDeletedDocumentsMoveOrLeaveAndAreNeverListedTwice() throws {
        for id in ["a", "b", "c"] { try harness.directory.create(DocumentID(rawValue: id)!, owner: "olivia") }
        #expect(harness.send(.put, "/v1/documents/b/owner", as: "olivia", body: #"{"user":"rita"}"#).status == 200)
        #expect(harness.send(.delete, "/v1/documents/c", as: "olivia").status == 200)
        #expect(try pageThrough("olivia", limit: 10) == ["a"])
        #expect(try pageThrough("rita", limit: 10) == ["b"])
        // Given back: listed once, at its new place.
        #expect(harness.send(.put, "/v1/documents/b/owner", as: "rita", body: #"{"user":"olivia"}"#).status == 200)
        #expect(try pageThrough("olivia", limit: 1) == ["a", "b"])
        #expect(try pageThrough("rita", limit: 10) == [])
    }

    private func grant(_ id: String, _ user: String, _ role: String, as owner: String = "olivia") {
        let response = harness.send(
            .put, "/v1/documents/\(id)/permissions", as: owner, body: #"{"user":"\#(user)","role":"\#(role)"}"#)
        #expect(response.status == 200, "\(response.text)")
    }

    @Test func sharedListsDirectGrantsOnceThroughChangesAndNotLinkAccess() throws {
        for id in ["a", "b", "c", "d"] { try harness.directory.create(DocumentID(rawValue: id)!, owner: "olivia") }
        grant("a", "rita", "reader")
        grant("b", "rita", "read-write")
        grant("a", "rita", "read-write")  // a role change keeps its place
        #expect(harness.send(.put, "/v1/documents/c/link-access", as: "olivia", body: #"{"role":"reader"}"#).status == 200)
        #expect(try pageThrough("rita", limit: 1, path: "/v1/me/shared") == ["a", "b"])  // c: link only

        let page = get([], as: "rita", path: "/v1/me/shared")
        let first = try #require((page.object["documents"] as? [[String: Any]])?.first)
        #expect(first["permission"] as? String == "read-write")
        #expect(first["grantedBy"] as? String == "olivia")

        // Revoked: gone; granted again: once, at its new place.
        #expect(harness.send(.delete, "/v1/documents/a/permissions", as: "olivia", query: [QueryItem(name: "user", value: "rita")]).status == 200)
        #expect(try pageThrough("rita", limit: 10, path: "/v1/me/shared") == ["b"])
        grant("a", "rita", "reader")
        #expect(try pageThrough("rita", limit: 10, path: "/v1/me/shared") == ["b", "a"])

        // A transfer: the new owner's entry goes, the old owner's appears.
        grant("d", "wes", "reader")
        #expect(harness.send(.put, "/v1/documents/d/owner", as: "olivia", body: #"{"user":"wes"}"#).status == 200)
        #expect(try pageThrough("wes", limit: 10, path: "/v1/me/shared") == [])
        #expect(try pageThrough("olivia", limit: 10, path: "/v1/me/shared") == ["d"])
        #expect(try pageThrough("olivia", limit: 10) == ["a", "b", "c"])
        #expect(try pageThrough("wes", limit: 10) == ["d"])
        // Deleted: gone.
        #expect(harness.send(.delete, "/v1/documents/b", as: "olivia").status == 200)
        #expect(try pageThrough("rita", limit: 10, path: "/v1/me/shared") == ["a"])
    }

    @Test func sharedPagesListEveryGrantOnceWhileGrantsAreAdded() throws {
        for index in 0..<30 {
            try harness.directory.create(DocumentID(rawValue: "s\(index)")!, owner: "olivia")
            grant("s\(index)", "rita", "reader")
        }
        var added: [String] = []
        let ids = try pageThrough("rita", limit: 7, path: "/v1/me/shared") { page in
            let id = "late\(page)"
            try harness.directory.create(DocumentID(rawValue: id)!, owner: "olivia")
            grant(id, "rita", "reader")
            added.append(id)
        }
        #expect(ids == (0..<30).map { "s\($0)" } + added.dropLast())
    }

    @Test func tagsFilterAndBadQueriesAreRefused() throws {
        try harness.directory.create("x", owner: "olivia", tags: ["work"])
        try harness.directory.create("y", owner: "olivia", tags: ["home"])
        try harness.directory.create("z", owner: "olivia", tags: ["work", "home"])
        #expect(try pageThrough("olivia", limit: 1, tag: "work") == ["x", "z"])
        for query in [[QueryItem(name: "limit", value: "0")], [QueryItem(name: "limit", value: "201")],
                      [QueryItem(name: "cursor", value: "bm90LWEtY3Vyc29y")], [QueryItem(name: "cursor", value: "%%")]] {
            let response = get(query, as: "olivia")
            #expect(response.status == 400)
            #expect(response.errorCode == "INVALID_ARGUMENT")
        }
        #expect(get([], as: nil).errorCode == "UNAUTHENTICATED")
    }
}
