import AccordCRDT
import AccordStore
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A records REST call's answer: status, the body as JSON, the headers.
struct RecordsResponse: @unchecked Sendable {
    var status: Int
    var json: Any?
    var text: String
    var headers: [String: String]

    var errorCode: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String }
    var errorDetails: [String: String] {
        (((json as? [String: Any])?["error"] as? [String: Any])?["details"] as? [String: String]) ?? [:]
    }
    /// The value under `result` (the success envelope).
    var result: Any? { (json as? [String: Any])?["result"] }
    var record: [String: Any] { (result as? [String: Any]) ?? [:] }
}

extension TestServer {
    /// The schema the records tests register: tasks (auto-assigned ids, defaults, a
    /// unique code, a bounded string set) and notes.
    static let recordsSchema = """
        {"models": [
          {"name": "tasks", "fields": [
            {"name": "id", "type": "id", "autoAssign": true},
            {"name": "title", "type": "string", "indexed": true},
            {"name": "priority", "type": "number", "default": 0},
            {"name": "done", "type": "boolean", "default": false},
            {"name": "due", "type": "date"},
            {"name": "code", "type": "string", "unique": true},
            {"name": "tags", "type": "stringset", "maxCount": 4}]},
          {"name": "notes", "fields": [{"name": "text", "type": "string"}]}
        ]}
        """

    /// One REST call with a raw body text and extra headers.
    func call(
        _ method: String, _ path: String, user: String?, body: String? = nil, headers: [String: String] = [:]
    ) async throws -> RecordsResponse {
        try await recordsCall(port: port, method, path, token: user.map(token), body: body, headers: headers)
    }
}

/// One REST call on the server at `port` with a bearer token (nil: none).
func recordsCall(
    port: Int, _ method: String, _ path: String, token: String?, body: String? = nil, headers: [String: String] = [:]
) async throws -> RecordsResponse {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.httpMethod = method
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    if let body {
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = response as? HTTPURLResponse
    var lowered: [String: String] = [:]
    for (name, value) in http?.allHeaderFields ?? [:] {
        if let name = name as? String, let value = value as? String { lowered[name.lowercased()] = value }
    }
    return RecordsResponse(
        status: http?.statusCode ?? 0, json: try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
        text: String(decoding: data, as: UTF8.self), headers: lowered)
}

extension TestServer {
    /// Creates `document` owned by `owner`, grants `members`, registers the records schema.
    func prepareRecords(
        _ document: String, owner: String = "olivia", members: [String: String] = [:], schema: String = recordsSchema
    ) async throws {
        let created = try await call("POST", "/v1/documents", user: owner, body: #"{"id":"\#(document)"}"#)
        try #require(created.status == 201, "create: \(created.text)")
        for (user, role) in members.sorted(by: { $0.key < $1.key }) {
            let granted = try await call(
                "PUT", "/v1/documents/\(document)/permissions", user: owner, body: #"{"user":"\#(user)","role":"\#(role)"}"#)
            try #require(granted.status == 200, "grant: \(granted.text)")
        }
        let schema = try await call("PUT", "/v1/documents/\(document)/records/$schema", user: owner, body: schema)
        try #require(schema.status == 200, "schema: \(schema.text)")
    }

    /// The document as stored (snapshot plus log), read from the server's store.
    func documentState(_ document: DocumentID) throws -> [UInt8] {
        try documents.load(document).encodeStateAsUpdate()
    }
}
