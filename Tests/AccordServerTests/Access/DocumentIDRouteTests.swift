import Foundation
import Testing
import AccordCRDT
@testable import AccordStore
import AccordNet
@testable import AccordServer

/// Ids that URL paths would normalise (`x/../y`, `./c2`, `p//q`, `.`, `..`, `/`) can be
/// created nowhere and are refused on every route with `INVALID_ARGUMENT`; `+` is literal.
@Suite(.timeLimit(.minutes(2)))
struct DocumentIDRouteTests {
    static let unaddressable = ["x/../y", "./c2", "p//q", ".", "..", "/", "a/", "/a", "a/./b"]

    @Test(arguments: unaddressable)
    func restCreateRefusesThemAndStoresNothing(_ raw: String) throws {
        let harness = RESTHarness()
        let before = try harness.storedState()
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["id": raw]), as: UTF8.self)
        let response = harness.send(.post, "/v1/documents", as: "olivia", body: body)
        #expect(response.status == 400, "\(response.text)")
        #expect(response.errorCode == "INVALID_ARGUMENT")
        #expect(try harness.storedState() == before)
    }

    /// The routes see the raw path (the HTTP layer does not normalise it) and refuse,
    /// rather than answering for whatever document the normalised path would name.
    @Test(arguments: ["x/../y", "./c2", "p//q", ".", "..", "a/", "a/./b"])
    func restPathsNamingThemAreRefused(_ raw: String) throws {
        let harness = RESTHarness()
        try harness.directory.create("y", owner: "olivia")
        try harness.directory.create("c2", owner: "olivia")
        try harness.directory.create("p/q", owner: "olivia")
        try harness.directory.create("a", owner: "olivia")
        for suffix in ["", "/permissions"] {
            let response = harness.send(.get, "/v1/documents/" + raw + suffix, as: "olivia")
            #expect(response.status == 400, "\(raw)\(suffix): \(response.text)")
            #expect(response.errorCode == "INVALID_ARGUMENT", "\(raw)\(suffix)")
        }
        let put = harness.send(.put, "/v1/documents/" + raw + "/link-access", as: "olivia", body: #"{"role":"reader"}"#)
        #expect(put.errorCode == "INVALID_ARGUMENT", "\(raw)")
        #expect(harness.changes.all.isEmpty)
    }

    @Test func plusIsLiteral() throws {
        let harness = RESTHarness()
        #expect(harness.send(.post, "/v1/documents", as: "olivia", body: #"{"id":"a+b"}"#).status == 201)
        #expect(harness.send(.get, "/v1/documents/a+b", as: "olivia").object["id"] as? String == "a+b")
        #expect(harness.send(.get, "/v1/documents/a b", as: "olivia").errorCode == "DOCUMENT_NOT_FOUND")
    }

    @Test(arguments: unaddressable)
    func syncPathsNamingThemAreInvalidArguments(_ raw: String) {
        let error = #expect(throws: AccordError.self) { try SyncEndpoint(path: "/v1/sync/" + raw) }
        #expect(error?.code == .invalidArgument, "\(raw)")
    }

    @Test func aSyncPathWhoseIDStartsWithACombiningMarkIsStillASyncPath() throws {
        #expect(try SyncEndpoint(path: "/v1/sync/\u{301}x") == .document(DocumentID(validating: "\u{301}x")))
    }

    /// On `/v1/sync` a frame naming such an id is malformed, as frames naming any other
    /// invalid id are: the connection is closed and nothing is created.
    @Test func aMultiplexedFrameNamingOneIsMalformedAndCreatesNothing() async throws {
        let server = try TestServer()
        let client = try await server.client("ada", document: nil)
        let id = try DocumentID(stored: "x/../y")
        client.open(id)
        try await eventually("closed") { client.closed != nil }
        #expect(client.closed?.code == 4400)
        #expect(client.errorCodes == ["MALFORMED_MESSAGE"])
        #expect(try server.documents.documents().isEmpty)
        try await server.stop()
    }
}
