import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordNet
import AccordServer

/// The directory's REST calls beyond roles: metadata and thumbnail with omitted /
/// null / value semantics, the metadata limit, create carrying them, and delete.
@Suite struct DocumentDirectoryAPITests {
    let harness = RESTHarness()
    let path = "/v1/documents/notes"

    init() throws {
        try harness.directory.create("notes", owner: "olivia", title: "Notes", tags: ["x"])
    }

    @Test func anAbsentFieldStaysNullClearsAndMetadataIsReplacedWhole() throws {
        let first = harness.send(
            .patch, path, as: "olivia", body: #"{"metadata":{"a":1,"b":[true,null]},"thumbnailBlobId":"blob-1"}"#)
        #expect(first.status == 200, "\(first.text)")
        #expect(try harness.directory.details("notes") == DocumentDetails(metadata: #"{"a":1,"b":[true,null]}"#, thumbnailBlobID: "blob-1"))
        #expect(first.object["thumbnailBlobId"] as? String == "blob-1")

        // Only the title: metadata and thumbnail stay; tags stay.
        let renamed = harness.send(.patch, path, as: "olivia", body: #"{"title":"Renamed"}"#)
        #expect(renamed.object["title"] as? String == "Renamed")
        #expect(renamed.object["tags"] as? [String] == ["x"])
        #expect((renamed.object["metadata"] as? [String: Any])?["a"] as? Int == 1)
        #expect(renamed.object["thumbnailBlobId"] as? String == "blob-1")

        // Replace semantics: the new object is the whole metadata.
        _ = harness.send(.patch, path, as: "olivia", body: #"{"metadata":{"c":"x"}}"#)
        #expect(try harness.directory.details("notes").metadata == #"{"c":"x"}"#)

        // null clears; clearing both removes the row.
        let cleared = harness.send(.patch, path, as: "olivia", body: #"{"metadata":null,"thumbnailBlobId":null}"#)
        #expect(cleared.object["metadata"] is NSNull)
        #expect(cleared.object["thumbnailBlobId"] is NSNull)
        #expect(try harness.storedState()["server.details"] == nil)
    }

    @Test func metadataOverFourKilobytesIsRefusedAndChangesNothing() throws {
        _ = harness.send(.patch, path, as: "olivia", body: #"{"metadata":{"keep":true}}"#)
        let before = try harness.storedState()
        // 4096 bytes as compact JSON fits; one more does not.
        let fits = #"{"k":""# + String(repeating: "v", count: 4096 - 8) + #""}"#
        let tooLarge = #"{"k":""# + String(repeating: "v", count: 4096 - 7) + #""}"#
        let refused = harness.send(.patch, path, as: "olivia", body: #"{"title":"T","metadata":"# + tooLarge + "}")
        #expect(refused.status == 400)
        #expect(refused.errorCode == "METADATA_TOO_LARGE")
        #expect(try harness.storedState() == before)
        let accepted = harness.send(.patch, path, as: "olivia", body: #"{"metadata":"# + fits + "}")
        #expect(accepted.status == 200)
        #expect(try harness.directory.details("notes").metadata?.utf8.count == 4096)
    }

    @Test(arguments: [
        (#"{"title":7}"#, "INVALID_ARGUMENT"),
        (#"{"thumbnailBlobId":""}"#, "INVALID_ARGUMENT"),
        (#"{"thumbnailBlobId":5}"#, "INVALID_ARGUMENT"),
        (#"{"owner":"x"}"#, "INVALID_ARGUMENT"),
        (#"{"metadata":1,"metadata":2}"#, "INVALID_ARGUMENT"),
        ("{", "MALFORMED_JSON"),
    ])
    func badBodiesAreRefusedAndChangeNothing(body: String, code: String) throws {
        let before = try harness.storedState()
        let response = harness.send(.patch, path, as: "olivia", body: body)
        #expect(response.status == 400)
        #expect(response.errorCode == code)
        #expect(try harness.storedState() == before)
    }

    @Test func createCarriesMetadataAndThumbnail() throws {
        let response = harness.send(
            .post, "/v1/documents", as: "rita", body: #"{"id":"fresh","metadata":{"n":2},"thumbnailBlobId":"t"}"#)
        #expect(response.status == 201)
        #expect(try harness.directory.details("fresh") == DocumentDetails(metadata: #"{"n":2}"#, thumbnailBlobID: "t"))
        let tooLarge = #"{"id":"big","metadata":""# + String(repeating: "v", count: 5000) + #""}"#
        let before = try harness.storedState()
        #expect(harness.send(.post, "/v1/documents", as: "rita", body: tooLarge).errorCode == "METADATA_TOO_LARGE")
        #expect(try harness.storedState() == before)
    }

    @Test func deleteRemovesEverythingAndTheIdCanBeCreatedAgain() throws {
        _ = harness.send(.patch, path, as: "olivia", body: #"{"metadata":{"a":1}}"#)
        _ = harness.send(.put, path + "/permissions", as: "olivia", body: #"{"user":"rita","role":"reader"}"#)
        let deleted = harness.send(.delete, path, as: "olivia")
        #expect(deleted.status == 200)
        #expect(deleted.text == #"{"deleted":true,"id":"notes"}"#)
        let state = try harness.storedState()
        #expect(state.values.allSatisfy { $0["notes"] == nil })
        #expect(harness.send(.get, path, as: "olivia").errorCode == "DOCUMENT_NOT_FOUND")
        #expect(harness.send(.delete, path, as: "olivia").errorCode == "DOCUMENT_NOT_FOUND")
        // A new document under the id starts clean: nothing of the old grants or details.
        #expect(harness.send(.post, "/v1/documents", as: "wes", body: #"{"id":"notes"}"#).status == 201)
        #expect(harness.send(.get, path, as: "rita").errorCode == "DOC_ACCESS_DENIED")
        #expect(try harness.directory.details("notes") == DocumentDetails())
    }
}
