import AccordCRDT
import AccordStore
import Foundation
import Testing

/// Every records route × every kind of caller: readers read, read-write writes, the
/// owner also sets the schema; no role is `DOC_ACCESS_DENIED`, no token 401.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RecordsAuthorizationTests {
    enum Need { case reader, writer, owner }

    struct Call {
        var method: String
        var path: String
        var body: String?
        var need: Need
        var success: Int
    }

    static let base = "/v1/documents/shared/records"
    static let calls: [Call] = [
        Call(method: "GET", path: "\(base)/$schema", body: nil, need: .reader, success: 200),
        Call(method: "PUT", path: "\(base)/$schema", body: TestServer.recordsSchema, need: .owner, success: 200),
        Call(method: "GET", path: "\(base)/tasks/t0", body: nil, need: .reader, success: 200),
        Call(method: "POST", path: "\(base)/tasks/query", body: "{}", need: .reader, success: 200),
        Call(method: "POST", path: "\(base)/tasks/count", body: "{}", need: .reader, success: 200),
        Call(method: "POST", path: "\(base)/tasks/aggregate", body: "{}", need: .reader, success: 200),
        Call(method: "POST", path: "\(base)/tasks", body: #"{"title":"new"}"#, need: .writer, success: 201),
        Call(method: "PATCH", path: "\(base)/tasks/t0", body: #"{"title":"changed"}"#, need: .writer, success: 200),
        Call(method: "POST", path: "\(base)/bulk", body: #"{"operations":[{"op":"create","model":"tasks","value":{}}]}"#,
             need: .writer, success: 200),
        Call(method: "DELETE", path: "\(base)/tasks/t1", body: nil, need: .writer, success: 200),
        Call(method: "POST", path: "\(base)/$ingests", body: "{}", need: .writer, success: 201),
        Call(method: "GET", path: "\(base)/$ingests/{session}", body: nil, need: .reader, success: 200),
        Call(method: "POST", path: "\(base)/$ingests/{session}/chunks?model=tasks", body: "t9\t{}", need: .writer, success: 200),
        Call(method: "POST", path: "\(base)/$ingests/{session}/commit", body: "{}", need: .writer, success: 202),
        Call(method: "DELETE", path: "\(base)/$ingests/{session}", body: nil, need: .writer, success: 200),
    ]

    @Test func everyCallerOnEveryRoute() async throws {
        let server = try TestServer()
        try await server.prepareRecords("shared", members: ["wes": "read-write", "rita": "reader"])
        let callers: [(user: String?, rank: Int)] = [("olivia", 3), ("wes", 2), ("rita", 1), ("nora", 0), (nil, -1)]
        for call in Self.calls {
            for caller in callers {
                // Fresh records for each call, so a delete or patch always has its record.
                let seed = try await server.call("POST", "\(Self.base)/bulk", user: "olivia", body: """
                    {"operations":[{"op":"create","model":"tasks","id":"t\(UUID().uuidString)","value":{}}]}
                    """)
                try #require(seed.status == 200)
                for id in ["t0", "t1"] {
                    _ = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: #"{"id":"\#(id)"}"#)
                }
                // An ingest session still uploading, for the session routes.
                let session = try await server.call("POST", "\(Self.base)/$ingests", user: "olivia", body: "{}")
                let path = call.path.replacingOccurrences(of: "{session}", with: session.record["id"] as? String ?? "")
                let before = try server.documentState("shared")
                let response = try await server.call(call.method, path, user: caller.user, body: call.body)
                let needed = switch call.need { case .reader: 1; case .writer: 2; case .owner: 3 }
                let label = "\(call.method) \(call.path) as \(caller.user ?? "nobody"): \(response.text)"
                switch caller.rank {
                case -1: #expect(response.status == 401 && response.errorCode == "UNAUTHENTICATED", "\(label)")
                case 0: #expect(response.status == 403 && response.errorCode == "DOC_ACCESS_DENIED", "\(label)")
                case let rank where rank < needed:
                    #expect(response.status == 403 && response.errorCode == "PERMISSION_DENIED", "\(label)")
                default: #expect(response.status == call.success, "\(label)")
                }
                if caller.rank < needed { #expect(try server.documentState("shared") == before, "\(label) wrote") }
            }
        }
        try await server.stop()
    }

    @Test func adminRoutesAreForAdminsOnly() async throws {
        let server = try TestServer { $0.adminUsers = ["admin"] }
        try await server.prepareRecords("shared")
        for path in ["/v1/admin/documents", "/v1/admin/documents/shared/export"] {
            let owner = try await server.call("GET", path, user: "olivia")
            #expect(owner.status == 403 && owner.errorCode == "PERMISSION_DENIED", "\(path)")
            let nobody = try await server.call("GET", path, user: nil)
            #expect(nobody.status == 401 && nobody.errorCode == "UNAUTHENTICATED", "\(path)")
            #expect(try await server.call("GET", path, user: "admin").status == 200, "\(path)")
        }
        let before = try server.documentState("shared")
        let refused = try await server.call(
            "POST", "/v1/documents/shared/import".replacingOccurrences(of: "/v1/documents", with: "/v1/admin/documents"),
            user: "olivia", body: #"{"metadata":{"documentId":"shared"},"update":"AAA=","overwrite":true}"#)
        #expect(refused.status == 403)
        #expect(try server.documentState("shared") == before)
        try await server.stop()
    }
}
