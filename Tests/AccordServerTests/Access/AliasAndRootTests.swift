import Foundation
import Testing
import AccordCRDT
import AccordStore
@testable import AccordNet
import AccordServer

/// `/v1/aliases/user/{key}` and `/v1/me/root` through the routes, and the root
/// document's refusals, each leaving every stored byte as it was.
@Suite struct AliasAndRootTests {
    let harness = RESTHarness()
    let routes: HTTPRoutes

    init() {
        var routes = HTTPRoutes()
        harness.api.register(in: &routes)
        self.routes = routes
    }

    private func send(_ method: HTTPMethod, _ path: String, as user: String?, body: String = "") -> HTTPResponse {
        var headers: [String: String] = [:]
        if let user { headers["x-test-user"] = user }
        return routes.respond(to: HTTPRequest(method: method, path: path, headers: headers, body: Array(body.utf8)))
    }

    @Test func getOrCreateCreatesOnceAndThenFinds() throws {
        let first = send(.put, "/v1/aliases/user/settings", as: "olivia", body: #"{"title":"Settings","tags":["app"]}"#)
        #expect(first.status == 201)
        #expect(first.object["created"] as? Bool == true)
        let document = try #require(first.object["document"] as? [String: Any])
        #expect(document["title"] as? String == "Settings" && document["owner"] as? String == "olivia")
        let id = try #require(document["id"] as? String)

        let again = send(.put, "/v1/aliases/user/settings", as: "olivia", body: #"{"title":"Ignored"}"#)
        #expect(again.status == 200)
        #expect(again.object["created"] as? Bool == false)
        #expect((again.object["document"] as? [String: Any])?["id"] as? String == id)
        #expect((again.object["document"] as? [String: Any])?["title"] as? String == "Settings")
        #expect(send(.get, "/v1/aliases/user/settings", as: "olivia").object["id"] as? String == id)

        // Aliases are per user: the same key is another document for someone else.
        let rita = send(.put, "/v1/aliases/user/settings", as: "rita")
        #expect((rita.object["document"] as? [String: Any])?["id"] as? String != id)
        #expect(send(.get, "/v1/aliases/user/inbox", as: "olivia").errorCode == "DOCUMENT_NOT_FOUND")
    }

    @Test func createRefusesATakenAliasAndChangesNothing() throws {
        #expect(send(.post, "/v1/aliases/user/inbox", as: "olivia").status == 201)
        let before = try harness.storedState(including: ["server.alias"])
        let taken = send(.post, "/v1/aliases/user/inbox", as: "olivia")
        #expect(taken.status == 409)
        #expect(taken.errorCode == "ALIAS_EXISTS")
        #expect(try harness.storedState(including: ["server.alias"]) == before)
    }

    @Test(arguments: ["$root", "$x", "a\u{1}b", String(repeating: "k", count: 257)])
    func badAliasKeysAreRefused(key: String) throws {
        let before = try harness.storedState(including: ["server.alias"])
        let response = send(.put, "/v1/aliases/user/" + key, as: "olivia")
        #expect(response.status == 400)
        #expect(response.errorCode == "INVALID_ARGUMENT")
        #expect(try harness.storedState(including: ["server.alias"]) == before)
    }

    @Test func withoutCredentialsAliasesAndRootAreUnauthenticated() throws {
        let before = try harness.storedState(including: ["server.alias"])
        for (method, path) in [(HTTPMethod.put, "/v1/aliases/user/a"), (.post, "/v1/aliases/user/a"),
                               (.get, "/v1/aliases/user/a"), (.put, "/v1/me/root")] {
            let response = send(method, path, as: nil)
            #expect(response.status == 401, "\(method) \(path)")
            #expect(response.errorCode == "UNAUTHENTICATED")
        }
        #expect(try harness.storedState(including: ["server.alias"]) == before)
    }

    @Test func theRootDocumentIsOnePerUserAndRefusesSharingTransferAndDelete() throws {
        let first = send(.put, "/v1/me/root", as: "olivia")
        #expect(first.status == 201)
        let id = try #require((first.object["document"] as? [String: Any])?["id"] as? String)
        #expect(send(.put, "/v1/me/root", as: "olivia").object["created"] as? Bool == false)
        #expect((send(.put, "/v1/me/root", as: "rita").object["document"] as? [String: Any])?["id"] as? String != id)

        let base = "/v1/documents/" + id
        let before = try harness.storedState(including: ["server.alias"])
        let refusals: [(HTTPMethod, String, String)] = [
            (.put, base + "/permissions", #"{"user":"rita","role":"reader"}"#),
            (.put, base + "/link-access", #"{"role":"reader"}"#),
            (.put, base + "/owner", #"{"user":"rita"}"#),
            (.delete, base, ""),
        ]
        for (method, path, body) in refusals {
            let response = send(method, path, as: "olivia", body: body)
            #expect(response.status == 403, "\(method) \(path)")
            #expect(response.errorCode == "ROOT_DOCUMENT_PROTECTED", "\(method) \(path)")
        }
        // Others have no access at all, so they learn nothing about it.
        #expect(send(.delete, base, as: "rita").errorCode == "DOC_ACCESS_DENIED")
        #expect(try harness.storedState(including: ["server.alias"]) == before)
        #expect(harness.changes.all.isEmpty)
        // Its owner may still read and edit its directory entry.
        #expect(send(.patch, base, as: "olivia", body: #"{"title":"Me"}"#).status == 200)
    }
}
