import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing
@testable import AccordServer

/// The People page's collections (every collection, paged; each person's) and groups
/// (every group, paged), and the document page's blob downloads.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DashboardSharingTests {
    @Test func collectionsAreListedAPageAtATimeAndPeopleShowTheirs() async throws {
        let server = try TestServer()
        for id in ["doc-1", "doc-2"] {
            #expect(try await server.request("POST", "/v1/documents", user: "olivia", json: ["id": id]).status == 201)
        }
        for (id, title) in [("c-b", "Second"), ("c-a", "First"), ("c-c", "Third")] {
            #expect(try await server.request("POST", "/v1/collections", user: "olivia", json: ["id": id, "title": title]).status == 201)
        }
        #expect(try await server.request("PUT", "/v1/collections/c-a/documents", user: "olivia", json: ["document": "doc-1"]).status == 200)
        #expect(try await server.request("PUT", "/v1/collections/c-c/members", user: "olivia", json: ["user": "cora", "role": "reader"]).status == 200)
        #expect(try await server.request("PUT", "/v1/collections/c-c/documents", user: "olivia", json: ["document": "doc-2"]).status == 200)
        let admin = DashboardAPITests.admin(server)

        var ids: [String] = []
        var after = ""
        var pages = 0
        repeat {
            let page = try await DashboardAPITests.call(
                server, "GET", "/v1/admin/dashboard/collections?limit=2&after=\(after)", token: admin)
            #expect(page.status == 200)
            let rows = page.result?["collections"] as? [[String: Any]] ?? []
            ids += rows.compactMap { $0["id"] as? String }
            if pages == 0 {
                #expect(rows.first?["title"] as? String == "First" && rows.first?["owner"] as? String == "olivia")
                #expect(rows.first?["documents"] as? [String] == ["doc-1"])
            }
            pages += 1
            after = page.result?["next"] as? String ?? ""
        } while !after.isEmpty && pages < 5
        #expect(ids == ["c-a", "c-b", "c-c"] && pages == 2)

        for bad in ["limit=0", "limit=201", "limit=two"] {
            let refused = try await DashboardAPITests.call(server, "GET", "/v1/admin/dashboard/collections?\(bad)", token: admin)
            #expect(refused.status == 400 && refused.errorCode == "INVALID_ARGUMENT", "\(bad)")
        }
        let user = try await DashboardAPITests.call(server, "GET", "/v1/admin/dashboard/collections", token: server.token("cora"))
        #expect(user.status == 403 && user.errorCode == "PERMISSION_DENIED")

        // Cora is seen once her connection closes; the People page lists her collection.
        func cora(connected: Bool) async throws -> [String: Any]? {
            var found: [String: Any]?
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                let people = try await DashboardAPITests.call(server, "GET", "/v1/admin/dashboard/people", token: admin)
                found = (people.result?["people"] as? [[String: Any]])?.first { $0["user"] as? String == "cora" }
                if found?["connected"] as? Bool == connected, connected || found?["documents"] as? [String] == ["doc-2"] { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            return found
        }
        let client = try await server.client("cora", document: "doc-2")
        #expect(try await cora(connected: true)?["collections"] as? [String] == ["c-c"])
        client.close()
        let seen = try await cora(connected: false)
        #expect(seen?["collections"] as? [String] == ["c-c"], "\(String(describing: seen))")
        #expect(seen?["documents"] as? [String] == ["doc-2"])
        try await server.stop()
    }

    @Test func groupsAreListedAPageAtATimeWithTheirMembers() async throws {
        let server = try TestServer()
        let admin = DashboardAPITests.admin(server)
        for (group, users) in [("team/design", ["gus", "amy"]), ("team/ops", ["zoe"]), ("org/all", ["amy"])] {
            let put = try await DashboardAPITests.call(server, "PUT", "/v1/admin/groups/\(group)/members", token: admin, json: ["users": users])
            #expect(put.status == 200, "\(group): \(put.status)")
        }
        var rows: [[String: Any]] = []
        var after = ""
        var pages = 0
        repeat {
            let page = try await DashboardAPITests.call(server, "GET", "/v1/admin/dashboard/groups?limit=2&after=\(after)", token: admin)
            #expect(page.status == 200)
            rows += page.result?["groups"] as? [[String: Any]] ?? []
            pages += 1
            after = page.result?["next"] as? String ?? ""
        } while !after.isEmpty && pages < 5
        #expect(rows.compactMap { $0["group"] as? String } == ["org/all", "team/design", "team/ops"] && pages == 2)
        #expect(rows.first { $0["group"] as? String == "team/design" }?["members"] as? [String] == ["amy", "gus"])
        #expect(rows.allSatisfy { $0["documents"] as? Int == 0 })
        let refused = try await DashboardAPITests.call(server, "GET", "/v1/admin/dashboard/groups?limit=0", token: admin)
        #expect(refused.status == 400 && refused.errorCode == "INVALID_ARGUMENT")
        let user = try await DashboardAPITests.call(server, "GET", "/v1/admin/dashboard/groups", token: server.token("gus"))
        #expect(user.status == 403 && user.errorCode == "PERMISSION_DENIED")
        try await server.stop()
    }

    @Test func aReferencedBlobDownloadsAsAnAttachmentAndNothingElseDoes() async throws {
        let server = try TestServer()
        try server.server.directory.create("files", owner: "alice")
        try server.server.directory.create("other", owner: "alice")
        let content = BlobHTTP.randomBytes(700_001, seed: 7)
        let hash = try BlobHTTP.sha256(content)
        let put = try BlobHTTP.curl(
            port: server.port, "PUT", BlobHTTP.blobPath("files", hash), token: server.token("alice"),
            headers: ["Content-Type: text/html"], data: content)
        #expect(put.status == 201, "\(put.text)")
        let admin = DashboardAPITests.admin(server)

        let page = try await DashboardAPITests.call(server, "GET", "/v1/admin/dashboard/document?id=files", token: admin)
        #expect((page.result?["blobs"] as? [[String: Any]])?.first?["hash"] as? String == hash)

        let download = try BlobHTTP.curl(
            port: server.port, "GET", "/v1/admin/dashboard/document/blob?id=files&hash=\(hash)", token: admin)
        #expect(download.status == 200)
        #expect(download.body == content)
        // Never rendered on the dashboard's origin, whatever type the uploader claimed.
        #expect(download.headers["content-type"] == "application/octet-stream")
        #expect(download.headers["content-disposition"] == "attachment; filename=\"\(hash)\"")
        #expect(download.headers["x-accord-blob-content-type"] == "text/html")
        #expect(download.headers["x-content-type-options"] == "nosniff")
        #expect(download.headers["content-security-policy"]?.contains("default-src 'none'") == true)

        let elsewhere = try BlobHTTP.curl(
            port: server.port, "GET", "/v1/admin/dashboard/document/blob?id=other&hash=\(hash)", token: admin)
        #expect(elsewhere.status == 404 && elsewhere.errorCode == "BLOB_NOT_FOUND", "a blob of another document")
        for bad in ["id=files", "id=files&hash=xyz", "id=files&hash=\(String(repeating: "0", count: 64))"] {
            let refused = try BlobHTTP.curl(port: server.port, "GET", "/v1/admin/dashboard/document/blob?\(bad)", token: admin)
            #expect((400...404).contains(refused.status) && refused.errorCode != nil, "\(bad): \(refused.status)")
        }
        let user = try BlobHTTP.curl(
            port: server.port, "GET", "/v1/admin/dashboard/document/blob?id=files&hash=\(hash)", token: server.token("alice"))
        #expect(user.status == 403 && user.errorCode == "PERMISSION_DENIED" && user.body.count < 1000)
        try await server.stop()
    }
}
