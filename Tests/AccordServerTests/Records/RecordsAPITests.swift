import AccordCRDT
import AccordStore
import Foundation
import Testing

/// The records routes against a real server: each rule of the API, and that a refused
/// call leaves the stored document byte-identical.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RecordsAPITests {
    static let base = "/v1/documents/inbox/records"

    @Test func createReadPatchDeleteInTheEnvelopeWithETags() async throws {
        let server = try TestServer()
        try await server.prepareRecords("inbox")
        let created = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: #"{"title":"Buy milk","tags":["a","b"]}"#)
        #expect(created.status == 201, "\(created.text)")
        let record = created.record
        let id = try #require(record["id"] as? String)
        #expect(id.count == 26)  // an auto-assigned ULID
        #expect(record["document"] as? String == "inbox")
        #expect(record["priority"] as? Int == 0 && record["done"] as? Bool == false)  // defaults
        #expect(record["tags"] as? [String] == ["a", "b"])
        let tag = try #require(created.headers["etag"])

        let read = try await server.call("GET", "\(Self.base)/tasks/\(id)", user: "olivia")
        #expect(read.status == 200 && read.headers["etag"] == tag)
        #expect(read.record["title"] as? String == "Buy milk")

        // RFC 7396: a value replaces, null unsets, a string set takes the whole array.
        let patched = try await server.call(
            "PATCH", "\(Self.base)/tasks/\(id)", user: "olivia", body: #"{"title":"Buy oat milk","priority":null,"tags":["b","c"]}"#)
        #expect(patched.status == 200, "\(patched.text)")
        #expect(patched.record["title"] as? String == "Buy oat milk")
        #expect(patched.record["priority"] == nil)
        #expect(patched.record["tags"] as? [String] == ["b", "c"])
        #expect(patched.headers["etag"] != tag)

        let deleted = try await server.call("DELETE", "\(Self.base)/tasks/\(id)", user: "olivia")
        #expect(deleted.status == 200)
        #expect(deleted.record["deleted"] as? Bool == true)
        let gone = try await server.call("GET", "\(Self.base)/tasks/\(id)", user: "olivia")
        #expect(gone.status == 404 && gone.errorCode == "RECORD_NOT_FOUND")
        let patchGone = try await server.call("PATCH", "\(Self.base)/tasks/\(id)", user: "olivia", body: #"{"title":"x"}"#)
        #expect(patchGone.status == 404 && patchGone.errorCode == "RECORD_NOT_FOUND")
        try await server.stop()
    }

    @Test(arguments: [#"{"type":"x"}"#, #"{"_secret":1,"title":"t"}"#])
    func reservedFieldNamesAreRefusedAndNothingIsWritten(body: String) async throws {
        let server = try TestServer()
        try await server.prepareRecords("inbox")
        _ = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: #"{"id":"t1","title":"first"}"#)
        let before = try server.documentState("inbox")
        let refused = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: body)
        #expect(refused.status == 400 && refused.errorCode == "RESERVED_FIELD_NAME", "\(refused.text)")
        let patch = try await server.call("PATCH", "\(Self.base)/tasks/t1", user: "olivia", body: body)
        #expect(patch.status == 400 && patch.errorCode == "RESERVED_FIELD_NAME")
        let bulk = try await server.call("POST", "\(Self.base)/bulk", user: "olivia", body: """
            {"operations":[{"op":"create","model":"notes","value":{"text":"fine"}},{"op":"create","model":"tasks","value":\(body)}]}
            """)
        #expect(bulk.status == 400 && bulk.errorCode == "RESERVED_FIELD_NAME")
        #expect(try server.documentState("inbox") == before)
        try await server.stop()
    }

    @Test func unknownFieldsAndWrongTypesAreNamedEach() async throws {
        let server = try TestServer()
        try await server.prepareRecords("inbox")
        let before = try server.documentState("inbox")
        let refused = try await server.call(
            "POST", "\(Self.base)/tasks", user: "olivia",
            body: #"{"title":3,"nope":true,"tags":["a","b","c","d","e"],"due":"yesterday","priority":"high"}"#)
        #expect(refused.status == 400 && refused.errorCode == "VALIDATION_FAILED")
        #expect(Set(refused.errorDetails.keys) == ["value.title", "value.nope", "value.tags", "value.due", "value.priority"])
        #expect(try server.documentState("inbox") == before)
        try await server.stop()
    }

    @Test func filterLimits() async throws {
        let server = try TestServer()
        try await server.prepareRecords("inbox")
        func query(_ filter: String) async throws -> RecordsResponse {
            try await server.call("POST", "\(Self.base)/tasks/query", user: "olivia", body: #"{"filter":\#(filter)}"#)
        }
        let thousand = (0..<1000).map { "\"t\($0)\"" }.joined(separator: ",")
        #expect(try await query(#"{"title":{"$in":[\#(thousand)]}}"#).status == 200)
        let tooMany = try await query(#"{"title":{"$nin":[\#(thousand),"one more"]}}"#)
        #expect(tooMany.status == 400 && tooMany.errorCode == "QUERY_IN_LIST_TOO_LARGE")
        #expect(tooMany.errorDetails["field"] == "title" && tooMany.errorDetails["count"] == "1001")
        let count = try await server.call(
            "POST", "\(Self.base)/tasks/count", user: "olivia", body: #"{"filter":{"title":{"$in":[\#(thousand),"x"]}}}"#)
        #expect(count.errorCode == "QUERY_IN_LIST_TOO_LARGE")

        // 101 separate conditions are too many; 150 equality branches on one field are one list.
        let conditions = (0..<101).map { #"{"priority":{"$ne":\#($0)}}"# }.joined(separator: ",")
        let binds = try await query(#"{"$and":[\#(conditions)]}"#)
        #expect(binds.status == 400 && binds.errorCode == "QUERY_FILTER_TOO_MANY_BINDS", "\(binds.text)")
        let aggregate = try await server.call(
            "POST", "\(Self.base)/tasks/aggregate", user: "olivia", body: #"{"filter":{"$and":[\#(conditions)]}}"#)
        #expect(aggregate.errorCode == "QUERY_FILTER_TOO_MANY_BINDS")
        let branches = (0..<150).map { #"{"title":"t\#($0)"}"# }.joined(separator: ",")
        #expect(try await query(#"{"$or":[\#(branches)]}"#).status == 200)
        let hundred = (0..<100).map { #"{"priority":{"$ne":\#($0)}}"# }.joined(separator: ",")
        #expect(try await query(#"{"$and":[\#(hundred)]}"#).status == 200)
        try await server.stop()
    }

    @Test func ifMatchPreconditions() async throws {
        let server = try TestServer()
        try await server.prepareRecords("inbox")
        let created = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: #"{"id":"t1","title":"a"}"#)
        let tag = try #require(created.headers["etag"])
        let before = try server.documentState("inbox")
        let stale = try await server.call(
            "PATCH", "\(Self.base)/tasks/t1", user: "olivia", body: #"{"title":"b"}"#, headers: ["If-Match": "\"0000\""])
        #expect(stale.status == 409 && stale.errorCode == "CONDITION_NOT_MET")
        let staleDelete = try await server.call("DELETE", "\(Self.base)/tasks/t1", user: "olivia", headers: ["If-Match": "\"0000\""])
        #expect(staleDelete.status == 409 && staleDelete.errorCode == "CONDITION_NOT_MET")
        let again = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: #"{"id":"t1","title":"c"}"#)
        #expect(again.status == 409 && again.errorCode == "CONDITION_NOT_MET")
        #expect(try server.documentState("inbox") == before)

        let fresh = try await server.call(
            "PATCH", "\(Self.base)/tasks/t1", user: "olivia", body: #"{"title":"b"}"#, headers: ["If-Match": tag])
        #expect(fresh.status == 200)
        let any = try await server.call(
            "DELETE", "\(Self.base)/tasks/t1", user: "olivia", headers: ["If-Match": "*"])
        #expect(any.status == 200)
        try await server.stop()
    }

    @Test func uniqueViolationsAndMissingModels() async throws {
        let server = try TestServer()
        try await server.prepareRecords("inbox")
        _ = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: #"{"id":"t1","code":"A-1"}"#)
        let clash = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: #"{"id":"t2","code":"A-1"}"#)
        #expect(clash.status == 409 && clash.errorCode == "UNIQUE_VIOLATION")
        let unknown = try await server.call("POST", "\(Self.base)/people", user: "olivia", body: #"{"name":"x"}"#)
        #expect(unknown.status == 404 && unknown.errorCode == "MODEL_NOT_REGISTERED")
        let noDocument = try await server.call("GET", "/v1/documents/nowhere/records/tasks/t1", user: "olivia")
        #expect(noDocument.status == 404 && noDocument.errorCode == "DOCUMENT_NOT_FOUND")
        let malformed = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: #"{"title":"#)
        #expect(malformed.status == 400 && malformed.errorCode == "MALFORMED_JSON")
        let badSchema = try await server.call(
            "PUT", "\(Self.base)/$schema", user: "olivia", body: #"{"name":"x","fields":[{"name":"type","type":"string"}]}"#)
        #expect(badSchema.status == 400 && badSchema.errorCode == "RESERVED_FIELD_NAME")
        let schema = try await server.call("GET", "\(Self.base)/$schema", user: "olivia")
        #expect(((schema.record["models"] as? [[String: Any]])?.map { $0["name"] as? String }) == ["tasks", "notes"])
        try await server.stop()
    }

    @Test func bulkIsAllOrNothing() async throws {
        let server = try TestServer()
        try await server.prepareRecords("inbox")
        _ = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: #"{"id":"t0","code":"taken"}"#)
        let before = try server.documentState("inbox")
        let bad: [(String, String, String)] = [
            (#"{"op":"create","model":"tasks","value":{"priority":"high"}}"#, "VALIDATION_FAILED", "operations[2].value.priority"),
            (#"{"op":"create","model":"tasks","value":{"code":"taken"}}"#, "UNIQUE_VIOLATION", "constraint"),
            (#"{"op":"patch","model":"tasks","id":"missing","value":{"title":"x"}}"#, "RECORD_NOT_FOUND", "operation"),
            (#"{"op":"create","model":"ghosts","value":{}}"#, "MODEL_NOT_REGISTERED", "operation"),
        ]
        for (entry, code, detail) in bad {
            let response = try await server.call("POST", "\(Self.base)/bulk", user: "olivia", body: """
                {"operations":[{"op":"create","model":"tasks","id":"t1","value":{"title":"one"}},
                               {"op":"create","model":"notes","id":"n1","value":{"text":"note"}},\(entry)]}
                """)
            #expect(response.errorCode == code, "\(response.text)")
            #expect(response.errorDetails[detail] != nil, "\(response.text)")
            #expect(try server.documentState("inbox") == before, "\(code) wrote something")
        }
        let good = try await server.call("POST", "\(Self.base)/bulk", user: "olivia", body: """
            {"operations":[{"op":"create","model":"tasks","id":"t1","value":{"title":"one"}},
                           {"op":"create","model":"notes","id":"n1","value":{"text":"note"}},
                           {"op":"patch","model":"tasks","id":"t1","value":{"priority":3}},
                           {"op":"delete","model":"tasks","id":"t0"}]}
            """)
        #expect(good.status == 200, "\(good.text)")
        #expect((good.result as? [[String: Any]])?.map { $0["op"] as? String } == ["create", "create", "patch", "delete"])
        let t1 = try await server.call("GET", "\(Self.base)/tasks/t1", user: "olivia")
        #expect(t1.record["priority"] as? Int == 3 && t1.record["title"] as? String == "one")
        #expect(try await server.call("GET", "\(Self.base)/notes/n1", user: "olivia").status == 200)
        #expect(try await server.call("GET", "\(Self.base)/tasks/t0", user: "olivia").status == 404)
        try await server.stop()
    }

    @Test func queryCountAggregateWithSortAndCursors() async throws {
        let server = try TestServer()
        try await server.prepareRecords("inbox")
        let operations = (0..<7).map { #"{"op":"create","model":"tasks","id":"t\#($0)","value":{"priority":\#($0 % 3),"tags":["x\#($0 % 2)"]}}"# }
        let bulk = try await server.call("POST", "\(Self.base)/bulk", user: "olivia", body: #"{"operations":[\#(operations.joined(separator: ","))]}"#)
        #expect(bulk.status == 200, "\(bulk.text)")
        var seen: [String] = []
        var cursor: String?
        repeat {
            let cursorJSON = cursor.map { #","cursor":"\#($0)""# } ?? ""
            let page = try await server.call(
                "POST", "\(Self.base)/tasks/query", user: "olivia",
                body: #"{"filter":{"priority":{"$gte":1}},"sort":[{"field":"priority","direction":-1}],"limit":2\#(cursorJSON)}"#)
            #expect(page.status == 200, "\(page.text)")
            let result = page.record
            seen += ((result["data"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
            cursor = result["nextCursor"] as? String
            #expect((result["hasMore"] as? Bool) == (cursor != nil))
        } while cursor != nil
        #expect(seen == ["t2", "t5", "t1", "t4"])
        let count = try await server.call("POST", "\(Self.base)/tasks/count", user: "olivia", body: #"{"filter":{"tags":{"$contains":"x0"}}}"#)
        #expect(count.record["count"] as? Int == 4)
        let aggregate = try await server.call(
            "POST", "\(Self.base)/tasks/aggregate", user: "olivia",
            body: #"{"groupBy":["priority"],"operations":[{"type":"count"}],"sort":{"field":"priority","direction":1}}"#)
        let rows = (aggregate.record["rows"] as? [[String: Any]]) ?? []
        #expect(rows.map { $0["value"] as? Int } == [3, 2, 2], "\(aggregate.text)")
        let scoped = try await server.call("POST", "\(Self.base)/tasks/aggregate", user: "olivia", body: #"{"documents":["other"]}"#)
        #expect(scoped.status == 400 && scoped.errorCode == "INVALID_QUERY")
        try await server.stop()
    }

    @Test func aDocumentThatCannotLoadIsUnavailable() async throws {
        let server = try TestServer()
        try await server.prepareRecords("inbox")
        // A log entry that does not decode: the room cannot load, and nothing replaces it.
        try server.documents.append([0xFF, 0xFF, 0xFF], to: "inbox", isLocal: false)
        try server.documents.flush()
        let refused = try await server.call("POST", "\(Self.base)/tasks", user: "olivia", body: #"{"title":"x"}"#)
        #expect(refused.status == 503 && refused.errorCode == "DOCUMENT_UNAVAILABLE", "\(refused.text)")
        #expect(refused.text.contains("The document is momentarily unreachable; retry the write"))
        try await server.stop()
    }
}
