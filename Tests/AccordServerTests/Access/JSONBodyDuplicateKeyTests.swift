import Foundation
import Testing
import AccordCRDT
import AccordNet
@testable import AccordServer

/// A body naming a key twice is ambiguous (parsers disagree on which value wins), so it
/// is refused with `INVALID_ARGUMENT` rather than read as its last value.
@Suite struct JSONBodyDuplicateKeyTests {
    let harness = RESTHarness()

    @Test(arguments: [
        #"{"id":"a","id":"b"}"#,
        #"{"title":"x","id":"a","title":"y"}"#,
        #"{"id":"a", "id" : "a"}"#,
        #"{"id":"a","\u0069d":"b"}"#,  // the same key, spelled with an escape
        #"{"tags":["t"],"tags":[]}"#,
    ])
    func duplicateKeysInACreateBodyAreRefused(_ body: String) throws {
        let before = try harness.storedState()
        let response = harness.send(.post, "/v1/documents", as: "olivia", body: body)
        #expect(response.status == 400, "\(response.text)")
        #expect(response.errorCode == "INVALID_ARGUMENT")
        #expect(try harness.storedState() == before)
    }

    @Test func duplicateKeysInAPermissionsBodyAreRefused() throws {
        try harness.directory.create("doc", owner: "olivia")
        let before = try harness.storedState()
        let response = harness.send(
            .put, "/v1/documents/doc/permissions", as: "olivia",
            body: #"{"user":"rita","role":"reader","role":"read-write"}"#)
        #expect(response.errorCode == "INVALID_ARGUMENT", "\(response.text)")
        #expect(try harness.storedState() == before)
        #expect(harness.changes.all.isEmpty)
    }

    @Test(arguments: [
        #"{"id":"a","title":"id"}"#,
        #"{"id":"{\"id\":1,\"id\":2}"}"#,  // keys inside a string are text
        #"{"tags":["id","id"]}"#,  // repeated values are fine
        #"{"id":"a\"","title":"\\"}"#,
    ])
    func distinctKeysAreFine(_ body: String) throws {
        #expect(harness.send(.post, "/v1/documents", as: "olivia", body: body).status == 201)
    }

    @Test func nestedObjectsAreCheckedToo() throws {
        #expect(throws: AccordError.self) {
            try JSONBody.checkNoDuplicateKeys(Array(#"{"a":{"b":1,"b":2}}"#.utf8))
        }
        #expect(throws: Never.self) {
            try JSONBody.checkNoDuplicateKeys(Array(#"{"a":{"b":1},"c":{"b":2}}"#.utf8))
        }
    }
}
