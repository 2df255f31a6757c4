import AccordCRDT
import AccordNet
import AccordStore
import Testing
@testable import AccordServer

@Suite struct RecordsRouteTests {
    @Test func pathsNameTheirCalls() {
        #expect(RecordsRoute.parse(.post, "/v1/documents/a/b/records/tasks") == .success(.create(document: "a/b", model: "tasks")))
        #expect(RecordsRoute.parse(.get, "/v1/documents/a/records/tasks/x/y") == .success(.record(document: "a", model: "tasks", id: "x/y")))
        #expect(RecordsRoute.parse(.get, "/v1/documents/a/records/tasks/query") == .success(.record(document: "a", model: "tasks", id: "query")))
        #expect(RecordsRoute.parse(.post, "/v1/documents/a/records/tasks/query") == .success(.query(document: "a", model: "tasks")))
        #expect(RecordsRoute.parse(.post, "/v1/documents/a/records/tasks/count") == .success(.count(document: "a", model: "tasks")))
        #expect(RecordsRoute.parse(.post, "/v1/documents/a/records/tasks/aggregate") == .success(.aggregate(document: "a", model: "tasks")))
        #expect(RecordsRoute.parse(.post, "/v1/documents/a/records/bulk") == .success(.bulk(document: "a")))
        #expect(RecordsRoute.parse(.put, "/v1/documents/a/records/$schema") == .success(.schema(document: "a")))
        #expect(RecordsRoute.parse(.get, "/v1/documents/a/records/bulk") == .failure(.methodNotAllowed([.post])))
        #expect(RecordsRoute.parse(.post, "/v1/documents/a/records/tasks/t1") == .failure(.methodNotAllowed([.get, .patch, .delete])))
        #expect(RecordsRoute.parse(.post, "/v1/documents/a/records/") == .failure(.notFound))
        #expect(!RecordsRoute.claims("/v1/documents/a/records"))
        #expect(!RecordsRoute.claims("/v1/documents/records/x"))
    }

    @Test func idsHoldingTheMarkerCannotBeCreated() throws {
        let harness = RESTHarness()
        let response = harness.send(.post, "/v1/documents", as: "olivia", body: #"{"id":"a/records/b"}"#)
        #expect(response.status == 400 && response.errorCode == "INVALID_ARGUMENT")
    }

    @Test func unexpectedErrorsAreInternalWithoutDetails() {
        let response = RecordsError.response(AccordError(.storageError, "disk on fire", details: ["path": "/secret"]))
        #expect(response.status == 500 && response.errorCode == "INTERNAL_ERROR")
        #expect(!response.text.contains("secret") && !response.text.contains("disk on fire"))
    }

    @Test func recordsAPICodesAreStable() {
        #expect(ErrorCode.allRecordsAPICodes.map(\.rawValue) == [
            "VALIDATION_FAILED", "QUERY_IN_LIST_TOO_LARGE", "QUERY_FILTER_TOO_MANY_BINDS", "CONDITION_NOT_MET", "INTERNAL_ERROR",
            "INGEST_SESSION_NOT_FOUND",
        ])
    }
}
