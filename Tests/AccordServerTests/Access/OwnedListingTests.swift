import Foundation
import Testing
import AccordCRDT
import AccordStore
@testable import AccordNet
import AccordServer

/// `GET /v1/me/documents`: opaque cursors that page through every owned document
/// exactly once while documents are added, given away, received and deleted.
@Suite struct OwnedListingTests {
    let harness = RESTHarness()
    let routes: HTTPRoutes

    init() {
        var routes = HTTPRoutes()
        harness.api.register(in: &routes)
        self.routes = routes
    }

    private func get(_ query: [QueryItem], as user: String?) -> HTTPResponse {
        var headers: [String: String] = [:]
        if let user { headers["x-test-user"] = user }
        return routes.respond(to: HTTPRequest(method: .get, path: "/v1/me/documents", query: query, headers: headers))
    }

    /// Every id on every page, following cursors, running `between` after each page.
    private func pageThrough(
        _ user: String, limit: Int, tag: String? = nil, between: (Int) throws -> Void = { _ in }
    ) throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        var page = 0
        repeat {
            var query = [QueryItem(name: "limit", value: String(limit))]
            if let cursor { query.append(QueryItem(name: "cursor", value: cursor)) }
            if let tag { query.append(QueryItem(name: "tag", value: tag)) }
            let response = get(query, as: user)
            #expect(response.status == 200, "\(response.text)")
            let documents = try #require(response.object["documents"] as? [[String: Any]])
            #expect(documents.count <= limit)
            ids += documents.compactMap { $0["id"] as? String }
            #expect(documents.allSatisfy { $0["permission"] as? String == "owner" })
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
