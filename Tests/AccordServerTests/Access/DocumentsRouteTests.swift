import Testing
@testable import AccordNet
import AccordCRDT
import AccordStore
import AccordServer

/// Paths are URL-decoded and ids may contain `/`: the id is everything after
/// `/v1/documents/` unless the path ends in `/permissions` or `/link-access`.
@Suite struct DocumentsRouteTests {
    let harness = RESTHarness()

    @Test func idsWithSlashesAreAddressed() throws {
        try harness.directory.create("a/b", owner: "olivia")
        try harness.directory.create("a", owner: "bob")
        try harness.directory.create("permissions", owner: "olivia")
        #expect(harness.send(.get, "/v1/documents/a/b", as: "olivia").object["id"] as? String == "a/b")
        #expect(harness.send(.get, "/v1/documents/a/b/permissions", as: "olivia").object["owner"] as? String == "olivia")
        #expect(harness.send(.get, "/v1/documents/a/permissions", as: "bob").object["owner"] as? String == "bob")
        #expect(harness.send(.get, "/v1/documents/permissions", as: "olivia").object["id"] as? String == "permissions")
        #expect(harness.send(.put, "/v1/documents/a/b/link-access", as: "olivia", body: #"{"role":"reader"}"#).status == 200)
        #expect(try harness.directory.access.access("a/b")?.linkAccess == .reader)
        #expect(try harness.directory.access.access("a")?.linkAccess == nil)
        #expect(harness.changes.all == ["a/b"])
    }

    @Test func unicodeIsKeptInTheID() throws {
        try harness.directory.create("\u{301}x", owner: "olivia")
        try harness.directory.create("caf\u{E9}", owner: "olivia")
        #expect(harness.send(.get, "/v1/documents/\u{301}x/permissions", as: "olivia").status == 200)
        // Ids compare by bytes: the decomposed spelling is another document.
        #expect(harness.send(.get, "/v1/documents/cafe\u{301}", as: "olivia").errorCode == "DOCUMENT_NOT_FOUND")
        #expect(harness.send(.get, "/v1/documents/caf\u{E9}", as: "olivia").status == 200)
    }

    @Test func emptyIDsAreInvalid() throws {
        for path in ["/v1/documents/", "/v1/documents//permissions", "/v1/documents//link-access"] {
            let method: HTTPMethod = path.hasSuffix("link-access") ? .delete : .get
            let response = harness.send(method, path, as: "olivia")
            #expect(response.status == 400, "\(path)")
            #expect(response.errorCode == "INVALID_ARGUMENT", "\(path)")
        }
    }

    @Test(arguments: [
        ("GET", "/v1/documents", "POST"),
        ("PUT", "/v1/documents/a", "GET, PATCH, DELETE"),
        ("POST", "/v1/documents/a", "GET, PATCH, DELETE"),
        ("POST", "/v1/documents/a/permissions", "GET, PUT, DELETE"),
        ("POST", "/v1/documents/a/link-access", "GET, PUT, DELETE"),
        ("PATCH", "/v1/documents/a/permissions", "GET, PUT, DELETE"),
    ])
    func otherMethodsAre405WithAllow(_ method: String, _ path: String, _ allow: String) {
        let response = harness.send(HTTPMethod(rawValue: method), path, as: "olivia")
        #expect(response.status == 405)
        #expect(response.headers.first { $0.name == "allow" }?.value == allow)
        #expect(harness.changes.all.isEmpty)
    }

    @Test(arguments: ["/v1/documentsx", "/v1/document/a", "/v2/documents/a", "/"])
    func otherPathsAre404(_ path: String) {
        #expect(harness.send(.get, path, as: "olivia").status == 404)
    }

    /// Through a route table as the server uses it, including an id whose first
    /// character would fuse with the slash in `String.hasPrefix`.
    @Test func registerRoutesEveryCallToTheAPI() throws {
        var routes = HTTPRoutes()
        harness.api.register(in: &routes)
        let user = ["x-test-user": "olivia"]
        let created = routes.respond(to: HTTPRequest(
            method: .post, path: "/v1/documents", headers: user, body: Array(#"{"id":"\u0301x"}"#.utf8)))
        #expect(created.status == 201)
        #expect(routes.respond(to: HTTPRequest(method: .get, path: "/v1/documents/\u{301}x", headers: user)).status == 200)
        #expect(routes.respond(to: HTTPRequest(
            method: .put, path: "/v1/documents/\u{301}x/link-access", headers: user,
            body: Array(#"{"role":"reader"}"#.utf8))).status == 200)
        #expect(routes.respond(to: HTTPRequest(
            method: .delete, path: "/v1/documents/\u{301}x/permissions",
            query: [QueryItem(name: "user", value: "bob")], headers: user)).status == 200)
        #expect(routes.respond(to: HTTPRequest(method: .post, path: "/v1/documents/a", headers: user)).status == 405)
        #expect(routes.respond(to: HTTPRequest(method: .get, path: "/v1/documents", headers: user)).status == 405)
        #expect(routes.respond(to: HTTPRequest(method: .get, path: "/health", headers: user)).status == 404)
    }
}
