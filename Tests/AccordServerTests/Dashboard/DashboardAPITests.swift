import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import AccordServer

/// The dashboard's routes without a browser: who may call them, what they answer, and
/// that a refused or bad call changes nothing.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DashboardAPITests {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var json: [String: Any]?
        var body: Data
        var result: [String: Any]? { json?["result"] as? [String: Any] }
        var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
    }

    static func call(_ server: TestServer, _ method: String, _ path: String, token: String?, json: Any? = nil) async throws -> Answer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] { headers[String(describing: name).lowercased()] = String(describing: value) }
        return Answer(status: http?.statusCode ?? 0, headers: headers,
                      json: try? JSONSerialization.jsonObject(with: data) as? [String: Any], body: data)
    }

    static func admin(_ server: TestServer) -> String { server.tokens.mint(subject: "ops", ttl: 3600, admin: true) }

    @Test func thePageAndItsFilesCarryTheStrictHeadersAndNoInlineScript() async throws {
        let server = try TestServer()
        for (path, type) in [("/dashboard", "text/html"), ("/dashboard/app.js", "text/javascript"),
                             ("/dashboard/views.js", "text/javascript"), ("/dashboard/app.css", "text/css")] {
            let answer = try await Self.call(server, "GET", path, token: nil)
            #expect(answer.status == 200, "\(path)")
            #expect(answer.headers["content-type"]?.hasPrefix(type) == true, "\(path): \(answer.headers)")
            let policy = answer.headers["content-security-policy"] ?? ""
            #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'")
                    && policy.contains("default-src 'none'") && !policy.contains("unsafe"), "\(path): \(policy)")
            #expect(answer.headers["x-content-type-options"] == "nosniff")
            #expect(answer.headers["referrer-policy"] == "no-referrer")
        }
        let html = String(decoding: try await Self.call(server, "GET", "/dashboard", token: nil).body, as: UTF8.self)
        // Every script element loads a file; none carries code, and no element has an inline handler or style.
        let scripts = html.components(separatedBy: "<script").dropFirst()
        #expect(scripts.count == 2 && scripts.allSatisfy { $0.hasPrefix(" src=\"/dashboard/") && $0.contains("></script>") })
        #expect(!html.contains(" onload=") && !html.contains(" onclick=") && !html.contains(" style="))
        // The script never builds markup from strings.
        let code = DashboardAssets.script + DashboardAssets.views
        #expect(!code.contains("innerHTML") && !code.contains("outerHTML") && !code.contains("insertAdjacentHTML")
                && !code.contains("eval(") && !code.contains("document.write"))
        try await server.stop()
    }

    @Test func everyDataRouteRefusesCallersWhoAreNotAdmins() async throws {
        let server = try TestServer { $0.adminUsers = ["root"] }
        _ = try await server.request("POST", "/v1/documents", user: "alice", json: ["id": "kept", "title": "Kept"])
        let routes = [("GET", "/v1/admin/dashboard/overview"), ("GET", "/v1/admin/dashboard/documents"),
                      ("GET", "/v1/admin/dashboard/document?id=kept"), ("DELETE", "/v1/admin/dashboard/document?id=kept"),
                      ("POST", "/v1/admin/dashboard/ticket"), ("GET", "/v1/admin/dashboard/people"),
                      ("DELETE", "/v1/admin/dashboard/document/permissions?id=kept&user=bob")]
        for (method, path) in routes {
            let anonymous = try await Self.call(server, method, path, token: nil)
            #expect(anonymous.status == 401 && anonymous.errorCode == "UNAUTHENTICATED", "\(method) \(path)")
            let forged = try await Self.call(server, method, path, token: "not.a.token")
            #expect(forged.status == 401 && forged.errorCode == "UNAUTHENTICATED", "\(method) \(path)")
            let user = try await Self.call(server, method, path, token: server.token("alice"))
            #expect(user.status == 403 && user.errorCode == "PERMISSION_DENIED", "\(method) \(path)")
            #expect(user.headers["x-content-type-options"] == "nosniff")
        }
        // Nothing those calls tried happened.
        #expect(try server.documents.contains("kept"))
        // The admin claim and the configured admin users both get in.
        for token in [Self.admin(server), server.token("root")] {
            #expect(try await Self.call(server, "GET", "/v1/admin/dashboard/overview", token: token).status == 200)
        }
        try await server.stop()
    }

    @Test func theDocumentsTableSearchesSortsAndPages() async throws {
        let server = try TestServer()
        for (id, title, owner) in [("d-a", "Zebra notes", "alice"), ("d-b", "Apple plan", "bob"), ("d-c", "Mango list", "alice")] {
            let created = try await server.request("POST", "/v1/documents", user: owner, json: ["id": id, "title": title])
            #expect(created.status == 201)
        }
        let admin = Self.admin(server)
        let byTitle = try await Self.call(server, "GET", "/v1/admin/dashboard/documents?sort=title&order=asc", token: admin)
        let titles = (byTitle.result?["rows"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
        #expect(titles == ["Apple plan", "Mango list", "Zebra notes"])
        let searched = try await Self.call(server, "GET", "/v1/admin/dashboard/documents?q=ALICE&sort=id&order=desc", token: admin)
        #expect((searched.result?["rows"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["d-c", "d-a"])
        #expect(searched.result?["total"] as? Int == 2)
        let paged = try await Self.call(server, "GET", "/v1/admin/dashboard/documents?sort=id&pageSize=1&page=1", token: admin)
        #expect((paged.result?["rows"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["d-b"])
        #expect(paged.result?["total"] as? Int == 3)
        for bad in ["sort=size;drop", "order=up", "page=-1", "pageSize=100000", "pageSize=x"] {
            let refused = try await Self.call(server, "GET", "/v1/admin/dashboard/documents?\(bad)", token: admin)
            #expect(refused.status == 400 && refused.errorCode == "INVALID_ARGUMENT", "\(bad)")
        }
        try await server.stop()
    }

    @Test func aDocumentPageShowsItsContentTreeClientsAndAccess() async throws {
        let server = try TestServer()
        let client = try await server.client("alice", document: "tree")
        try client.edit("tree") { doc in
            let text = try doc.getText("body")
            try text.insert(0, "plain ")
            try text.insert(6, "bold", attributes: OrderedObject([("bold", .bool(true))]))
            let map = try doc.getMap("settings")
            try map.set("theme", .string("dark"))
            try map.setCounter("likes").increase(by: 3)
            try doc.getArray("list").append([.int(1), .string("two")])
        }
        let admin = Self.admin(server)
        try await eventually("the server has the edit") {
            (try? server.documents.metadata("tree").size) ?? 0 > 0
        }
        var page: [String: Any] = [:]
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            page = try await Self.call(server, "GET", "/v1/admin/dashboard/document?id=tree", token: admin).result ?? [:]
            if (page["content"] as? [[String: Any]])?.count == 3 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let roots = Dictionary(uniqueKeysWithValues: (page["content"] as? [[String: Any]] ?? []).map {
            ($0["name"] as? String ?? "", $0["node"] as? [String: Any] ?? [:])
        })
        #expect(roots["body"]?["type"] as? String == "text")
        let delta = roots["body"]?["delta"] as? [[String: Any]] ?? []
        #expect(delta.count == 2 && delta[1]["insert"] as? String == "bold"
                && (delta[1]["attributes"] as? [String: Any])?["bold"] as? Bool == true)
        let entries = roots["settings"]?["entries"] as? [[String: Any]] ?? []
        let likes = entries.first { $0["key"] as? String == "likes" }?["node"] as? [String: Any]
        #expect(likes?["counter"] as? Int == 3)
        #expect(((roots["list"]?["items"] as? [[String: Any]]) ?? []).count == 2)
        let clients = page["clients"] as? [[String: Any]] ?? []
        #expect(clients.count == 1 && clients.first?["user"] as? String == "alice")
        #expect((page["access"] as? [String: Any])?["owner"] as? String == "alice")
        #expect(((page["recentUpdates"] as? [[String: Any]]) ?? []).count >= 1)
        client.close()
        try await server.stop()
    }

    @Test func theActionsDownloadCompactRevokeAndDelete() async throws {
        let server = try TestServer()
        let client = try await server.client("alice", document: "acted")
        try client.edit("acted") { doc in try doc.getText("t").insert(0, "keep me") }
        try await eventually("stored") { (try? server.documents.metadata("acted").size) ?? 0 > 0 }
        #expect(try await server.request("PUT", "/v1/documents/acted/permissions", user: "alice", json: ["user": "bob", "role": "read-write"]).status == 200)
        let admin = Self.admin(server)

        let download = try await Self.call(server, "GET", "/v1/admin/dashboard/document/yjs?id=acted", token: admin)
        #expect(download.status == 200 && download.headers["content-disposition"]?.contains("document.yjs") == true)
        let copy = Doc()
        try copy.applyUpdate(Array(download.body))
        #expect(try copy.getText("t").string == "keep me")

        let compact = try await Self.call(server, "POST", "/v1/admin/dashboard/document/compact?id=acted", token: admin)
        #expect(compact.status == 200 && compact.result?["outcome"] as? String == "compacted")

        let export = try await Self.call(server, "GET", "/v1/admin/dashboard/document/export?id=acted", token: admin)
        #expect(export.status == 200 && export.result?["update"] is String)

        let revoke = try await Self.call(server, "DELETE", "/v1/admin/dashboard/document/permissions?id=acted&user=bob", token: admin)
        #expect(revoke.status == 200)
        #expect(try server.server.directory.access.role(of: "bob", on: "acted") == nil)
        let owner = try await Self.call(server, "DELETE", "/v1/admin/dashboard/document/permissions?id=acted&user=alice", token: admin)
        #expect(owner.status >= 400, "revoking the owner is refused as on the sharing route")

        for bad in ["/v1/admin/dashboard/document", "/v1/admin/dashboard/document?id=", "/v1/admin/dashboard/document?id=missing"] {
            let refused = try await Self.call(server, "GET", bad, token: admin)
            #expect(refused.status == 400 || refused.status == 404, "\(bad): \(refused.status)")
            #expect(refused.errorCode != nil, "\(bad)")
        }
        let deleted = try await Self.call(server, "DELETE", "/v1/admin/dashboard/document?id=acted", token: admin)
        #expect(deleted.status == 200)
        #expect(try !server.documents.contains("acted"))
        client.close()
        try await server.stop()
    }

    @Test func theLiveSocketWantsAFreshSingleUseTicket() async throws {
        // A short heartbeat: this raw socket answers no ping, so the server hangs up
        // after three seconds, which ends the transcript.
        let server = try TestServer { $0.heartbeatSeconds = 1 }
        let refused = try RawWebSocket(port: server.port, timeoutSeconds: 3)
        let (refusedStatus, refusedRest) = try refused.upgrade(path: DashboardMonitor.livePath + "?ticket=made-up")
        #expect(refusedStatus.contains("101"))
        let refusal = refused.readToEnd(after: refusedRest)
        #expect(refusal.close?.code == DashboardMonitor.unauthenticatedCloseCode && refusal.messages.isEmpty)

        let ticket = try #require(try await Self.call(server, "POST", "/v1/admin/dashboard/ticket", token: Self.admin(server))
            .result?["ticket"] as? String)
        let socket = try RawWebSocket(port: server.port, timeoutSeconds: 2)
        let (status, rest) = try socket.upgrade(path: DashboardMonitor.livePath + "?ticket=" + ticket)
        #expect(status.contains("101"))
        let transcript = socket.readToEnd(after: rest)
        let hello = try JSONSerialization.jsonObject(with: Data(try #require(transcript.messages.first))) as? [String: Any]
        #expect(hello?["type"] as? String == "hello" && hello?["user"] as? String == "ops" && hello?["samples"] is [Any])
        // Samples follow, one a second.
        #expect(transcript.messages.dropFirst().contains { message in
            (try? JSONSerialization.jsonObject(with: Data(message)) as? [String: Any])?["type"] as? String == "sample"
        })

        let again = try RawWebSocket(port: server.port, timeoutSeconds: 3)
        let (_, againRest) = try again.upgrade(path: DashboardMonitor.livePath + "?ticket=" + ticket)
        #expect(again.readToEnd(after: againRest).close?.code == DashboardMonitor.unauthenticatedCloseCode)
        try await server.stop()
    }
}
