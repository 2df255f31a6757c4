import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import AccordCRDT
import AccordStore
import AccordServer

/// Groups (`docs/server-api.md`, Groups): membership managed by admins, document grants
/// to a group that follow membership at once (also for connected users), the members'
/// listing, the directory events, and every caller × every group route.
@Suite(.timeLimit(.minutes(2))) struct GroupsTests {
    static let doc: DocumentID = "doc"

    /// "olivia" owns "doc"; "wes" read-write, "rita" reader; with `linkAccess`, link
    /// access reader (so "lena" is a link viewer); team/design (member "gus") is granted
    /// reader; "ada" is the server's admin; "sam" a stranger.
    private func server(linkAccess: Bool = false) async throws -> TestServer {
        let server = try TestServer { $0.adminUsers = ["ada"] }
        try await expectStatus(server.request("POST", "/v1/documents", user: "olivia", json: ["id": "doc"]), 201)
        for (user, role) in [("wes", "read-write"), ("rita", "reader")] {
            try await expectStatus(server.request(
                "PUT", "/v1/documents/doc/permissions", user: "olivia", json: ["user": user, "role": role]), 200)
        }
        if linkAccess {
            try await expectStatus(server.request("PUT", "/v1/documents/doc/link-access", user: "olivia", json: ["role": "reader"]), 200)
        }
        try await expectStatus(server.request(
            "PUT", "/v1/admin/groups/team/design/members", user: "ada", json: ["users": ["gus"]]), 200)
        try await expectStatus(server.request(
            "PUT", "/v1/documents/doc/groups", user: "olivia",
            json: ["groupType": "team", "groupId": "design", "role": "reader"]), 200)
        return server
    }

    private func expectStatus(_ response: TestServer.Response, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == status, "\(response.body)", sourceLocation: sourceLocation)
    }

    /// Every row the group routes could write.
    private func stored(_ server: TestServer) throws -> [String: [String: [UInt8]]] {
        try server.documents.flush()
        let categories = ["server.access", "server.group", "server.group-documents", "server.details", "doc.meta"]
        return try server.documents.storage.withAdapter { adapter in
            var all: [String: [String: [UInt8]]] = [:]
            for name in categories {
                let category = StorageCategory(name)
                for key in try adapter.keys(in: category) { all[name, default: [:]][key] = try adapter.read(category, key: key) }
            }
            return all
        }
    }

    enum Caller: String, CaseIterable, Sendable {
        case owner, readWrite, reader, linkViewer, groupMember, admin, stranger, noToken

        var user: String? {
            switch self {
            case .owner: "olivia"
            case .readWrite: "wes"
            case .reader: "rita"
            case .linkViewer: "lena"
            case .groupMember: "gus"
            case .admin: "ada"
            case .stranger: "sam"
            case .noToken: nil
            }
        }
    }

    enum Route: String, CaseIterable, Sendable {
        case grantGroup, removeGroup, getGroup, addMembers, removeMembers, listGroupDocuments

        var request: (method: String, path: String, json: Any?) {
            switch self {
            case .grantGroup:
                ("PUT", "/v1/documents/doc/groups", ["groupType": "team", "groupId": "ops", "role": "read-write"])
            case .removeGroup: ("DELETE", "/v1/documents/doc/groups?groupType=team&groupId=design", nil)
            case .getGroup: ("GET", "/v1/admin/groups/team/design", nil)
            case .addMembers: ("PUT", "/v1/admin/groups/team/design/members", ["users": ["zed"]])
            case .removeMembers: ("DELETE", "/v1/admin/groups/team/design/members?user=gus", nil)
            case .listGroupDocuments: ("GET", "/v1/groups/team/design/documents", nil)
            }
        }

        /// Who may: the status and code for everyone else is written out per route.
        func expected(_ caller: Caller) -> (status: Int, code: String?, changes: Bool) {
            if caller == .noToken { return (401, "UNAUTHENTICATED", false) }
            switch self {
            case .grantGroup, .removeGroup:
                switch caller {
                case .owner: return (200, nil, true)
                case .readWrite, .reader, .linkViewer, .groupMember: return (403, "PERMISSION_DENIED", false)
                default: return (403, "DOC_ACCESS_DENIED", false)  // admin and stranger have no role
                }
            case .getGroup:
                return caller == .admin ? (200, nil, false) : (403, "PERMISSION_DENIED", false)
            case .addMembers, .removeMembers:
                return caller == .admin ? (200, nil, true) : (403, "PERMISSION_DENIED", false)
            case .listGroupDocuments:
                return caller == .admin || caller == .groupMember ? (200, nil, false) : (403, "PERMISSION_DENIED", false)
            }
        }
    }

    @Test(arguments: Route.allCases)
    func everyCallerOfEveryGroupRoute(_ route: Route) async throws {
        for caller in Caller.allCases {
            let server = try await server(linkAccess: caller == .linkViewer)
            let before = try stored(server)
            let request = route.request
            let response = try await server.request(request.method, request.path, user: caller.user, json: request.json)
            let expected = route.expected(caller)
            #expect(response.status == expected.status, "\(route) by \(caller): \(response.body)")
            #expect(response.errorCode == expected.code, "\(route) by \(caller)")
            let after = try stored(server)
            if expected.changes {
                #expect(after != before, "\(route) by \(caller) changed nothing")
            } else {
                #expect(after == before, "\(route) by \(caller) changed stored state")
            }
            try await server.stop()
        }
    }

    @Test func aGroupGrantFollowsMembershipAtOnceAlsoForConnectedUsers() async throws {
        let server = try await server()
        // Gus reads through the group; a stranger does not.
        let info = try await server.request("GET", "/v1/documents/doc", user: "gus")
        #expect((info.json as? [String: Any])?["permission"] as? String == "reader")
        #expect(try await server.request("GET", "/v1/documents/doc", user: "sam").errorCode == "DOC_ACCESS_DENIED")

        // Raising the group's grant to read-write: gus may write; his sync connection hears it.
        let gus = try await server.client("gus", document: nil)
        let dana = try await server.client("dana", document: nil)
        try await eventually("hellos") { !gus.accordMessages.isEmpty && !dana.accordMessages.isEmpty }
        _ = try await server.request(
            "PUT", "/v1/documents/doc/groups", user: "olivia", json: ["groupType": "team", "groupId": "design", "role": "read-write"])
        try await eventually("gus told") { permissions(gus) == ["reader>read-write group"] }
        gus.open("doc")
        try gus.edit("doc") { try $0.getText("t").insert(0, "by gus") }
        try await eventually("gus's edit stored") { (try? server.storedState("doc").text) == "by gus" }

        // Dana joins the group: she is told, and reads.
        _ = try await server.request("PUT", "/v1/admin/groups/team/design/members", user: "ada", json: ["users": ["dana"]])
        try await eventually("dana told") { permissions(dana) == ["->read-write group"] }
        #expect(try await server.request("GET", "/v1/documents/doc", user: "dana").status == 200)
        let listed = try await server.request("GET", "/v1/groups/team/design/documents", user: "dana")
        let documents = (listed.json as? [String: Any])?["documents"] as? [[String: Any]]
        #expect(documents?.map { $0["id"] as? String } == ["doc"])
        #expect(documents?.first?["source"] as? String == "group")

        // Gus leaves: his open connection loses the document before his next message.
        _ = try await server.request("DELETE", "/v1/admin/groups/team/design/members?user=gus", user: "ada")
        try await eventually("gus revoked") { gus.errorCodes.contains("DOC_ACCESS_DENIED") }
        #expect(permissions(gus).last == "read-write>- group")
        let before = try server.storedState("doc")
        try gus.edit("doc") { try $0.getText("t").insert(0, "late ") }
        try await Task.sleep(for: .milliseconds(100))
        #expect(try server.storedState("doc") == before)
        #expect(try await server.request("GET", "/v1/documents/doc", user: "gus").errorCode == "DOC_ACCESS_DENIED")

        // Removing the group's grant tells the remaining member.
        _ = try await server.request("DELETE", "/v1/documents/doc/groups?groupType=team&groupId=design", user: "olivia")
        try await eventually("dana told of the removal") { permissions(dana).last == "read-write>- group" }
        let emptied = try await server.request("GET", "/v1/groups/team/design/documents", user: "dana")
        #expect(((emptied.json as? [String: Any])?["documents"] as? [Any])?.count == 0)
        try await server.stop()
    }

    @Test func aTokenWithTheAdminClaimManagesGroups() async throws {
        let server = try await server()
        let token = server.tokens.mint(subject: "ops", ttl: 3600, admin: true)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/admin/groups/team/design/members")!)
        request.httpMethod = "PUT"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(#"{"users":["zed"]}"#.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        #expect(try server.server.directory.access.groups.members(of: GroupKey(groupType: "team", groupID: "design")) == ["gus", "zed"])
        // The same user without the claim is refused.
        #expect(try await server.request("GET", "/v1/admin/groups/team/design", user: "ops").errorCode == "PERMISSION_DENIED")
        try await server.stop()
    }

    @Test func badGroupNamesAndBodiesAreRefused() async throws {
        let server = try await server()
        let before = try stored(server)
        for (method, path, json) in [
            ("PUT", "/v1/documents/doc/groups", ["groupType": "team", "groupId": "a/b", "role": "reader"] as [String: Any]),
            ("PUT", "/v1/documents/doc/groups", ["groupType": "", "groupId": "x", "role": "reader"]),
            ("PUT", "/v1/documents/doc/groups", ["groupType": "team", "groupId": "x", "role": "owner"]),
            ("PUT", "/v1/documents/doc/groups", ["groupType": "team", "groupId": "x"]),
            ("PUT", "/v1/admin/groups/team/design/members", ["users": [""]]),
            ("PUT", "/v1/admin/groups/team/design/members", ["members": ["x"]]),
        ] {
            let user = path.hasPrefix("/v1/admin") ? "ada" : "olivia"
            let response = try await server.request(method, path, user: user, json: json)
            #expect(response.status == 400 && response.errorCode == "INVALID_ARGUMENT", "\(path) \(json): \(response.body)")
        }
        #expect(try await server.request("DELETE", "/v1/documents/doc/groups", user: "olivia").errorCode == "INVALID_ARGUMENT")
        #expect(try await server.request("GET", "/v1/groups/team/design/documents?limit=0", user: "gus").errorCode == "INVALID_ARGUMENT")
        #expect(try await server.request("GET", "/v1/groups/team/design/documents?cursor=%25", user: "gus").errorCode == "INVALID_ARGUMENT")
        #expect(try await server.request("POST", "/v1/admin/groups/team/design/members", user: "ada").status == 405)
        #expect(try await server.request("GET", "/v1/admin/groups/team", user: "ada").status == 404)
        #expect(try stored(server) == before)
        try await server.stop()
    }

    private func permissions(_ client: SyncTestClient) -> [String] {
        client.accordMessages.compactMap {
            if case .directory(.permissionChanged(_, let now, let before, let cause)) = $0 {
                "\(before ?? "-")>\(now ?? "-") \(cause)"
            } else {
                nil
            }
        }
    }
}
