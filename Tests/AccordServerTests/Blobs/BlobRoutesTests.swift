import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing

@testable import AccordServer

/// The blob routes through a real server (curl as the client): a byte-identical round
/// trip, dedupe, HEAD, Range, ETag and 304, the list, DELETE, and a thumbnail read by a
/// reader.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct BlobRoutesTests {
    static func makeDocument(_ server: TestServer, _ id: DocumentID, owner: String) throws {
        try server.server.directory.create(id, owner: owner)
    }

    @Test func uploadDownloadRoundTripIsByteIdentical() async throws {
        let server = try TestServer()
        try Self.makeDocument(server, "notes", owner: "alice")
        let token = server.token("alice")
        let content = BlobHTTP.randomBytes(3_000_001, seed: 1)
        let hash = try BlobHTTP.sha256(content)
        let file = try TemporaryDirectory()
        let source = file.path + "/photo.bin"
        FileManager.default.createFile(atPath: source, contents: Data(content))

        let put = try BlobHTTP.curl(
            port: server.port, "PUT", BlobHTTP.blobPath("notes", hash), token: token, headers: ["Content-Type: image/jpeg"],
            upload: source)
        #expect(put.status == 201, "\(put.text)")
        #expect(put.json?["blobId"] as? String == hash)
        #expect(put.json?["size"] as? Int == content.count)
        #expect(put.json?["contentType"] as? String == "image/jpeg")
        // The same bytes again: already stored, 200, still one copy.
        let again = try BlobHTTP.curl(
            port: server.port, "PUT", BlobHTTP.blobPath("notes", hash), token: token, upload: source)
        #expect(again.status == 200)
        #expect(try server.server.blobs.store.list().count == 1)

        let downloaded = file.path + "/down.bin"
        let get = try BlobHTTP.curl(port: server.port, "GET", BlobHTTP.blobPath("notes", hash), token: token, output: downloaded)
        #expect(get.status == 200)
        #expect(get.headers["etag"] == "\"\(hash)\"")
        #expect(get.headers["cache-control"] == "private, max-age=31536000, immutable")
        #expect(get.headers["accept-ranges"] == "bytes")
        #expect(get.headers["content-type"] == "image/jpeg")
        #expect(Array(FileManager.default.contents(atPath: downloaded) ?? Data()) == content)

        let head = try BlobHTTP.curl(port: server.port, "HEAD", BlobHTTP.blobPath("notes", hash), token: token)
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == String(content.count))
        #expect(head.headers["etag"] == "\"\(hash)\"")

        let range = try BlobHTTP.curl(
            port: server.port, "GET", BlobHTTP.blobPath("notes", hash), token: token, headers: ["Range: bytes=100-199"])
        #expect(range.status == 206)
        #expect(range.headers["content-range"] == "bytes 100-199/\(content.count)")
        #expect(range.body == Array(content[100..<200]))
        let suffix = try BlobHTTP.curl(
            port: server.port, "GET", BlobHTTP.blobPath("notes", hash), token: token, headers: ["Range: bytes=-10"])
        #expect(suffix.status == 206)
        #expect(suffix.body == Array(content.suffix(10)))
        let outside = try BlobHTTP.curl(
            port: server.port, "GET", BlobHTTP.blobPath("notes", hash), token: token,
            headers: ["Range: bytes=\(content.count)-"])
        #expect(outside.status == 416)
        #expect(outside.headers["content-range"] == "bytes */\(content.count)")

        let cached = try BlobHTTP.curl(
            port: server.port, "GET", BlobHTTP.blobPath("notes", hash), token: token,
            headers: ["If-None-Match: \"\(hash)\""])
        #expect(cached.status == 304)
        #expect(cached.body.isEmpty)

        let list = try BlobHTTP.curl(port: server.port, "GET", BlobHTTP.blobPath("notes"), token: token)
        #expect(list.status == 200)
        let entries = list.json?["blobs"] as? [[String: Any]] ?? []
        #expect(entries.count == 1)
        #expect(entries.first?["blobId"] as? String == hash)
        #expect(entries.first?["size"] as? Int == content.count)
        #expect(entries.first?["contentType"] as? String == "image/jpeg")
        #expect((entries.first?["createdAt"] as? String)?.hasSuffix("Z") == true)

        let delete = try BlobHTTP.curl(port: server.port, "DELETE", BlobHTTP.blobPath("notes", hash), token: token)
        #expect(delete.status == 204)
        let gone = try BlobHTTP.curl(port: server.port, "GET", BlobHTTP.blobPath("notes", hash), token: token)
        #expect(gone.status == 404)
        #expect(gone.errorCode == "BLOB_NOT_FOUND")
        let deleteAgain = try BlobHTTP.curl(port: server.port, "DELETE", BlobHTTP.blobPath("notes", hash), token: token)
        #expect(deleteAgain.errorCode == "BLOB_NOT_FOUND")
        try await server.stop()
    }

    @Test func emptyBlobAndPipelinedRequestAfterAnUpload() async throws {
        let server = try TestServer()
        try Self.makeDocument(server, "d", owner: "alice")
        let token = server.token("alice")
        let empty = try BlobHTTP.sha256([])
        let small = Array("hello blob".utf8)
        let smallHash = try BlobHTTP.sha256(small)
        // Two uploads and a GET on one connection: each body ends exactly where the next request starts.
        var bytes = BlobHTTP.putHead(BlobHTTP.blobPath("d", empty), token: token, length: 0)
        bytes += BlobHTTP.putHead(BlobHTTP.blobPath("d", smallHash), token: token, length: Int64(small.count)) + small
        bytes += Array("GET \(BlobHTTP.blobPath("d", smallHash)) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n".utf8)
        let transcript = try BlobHTTP.raw(port: server.port, bytes)
        #expect(transcript.status == 201)
        let text = transcript.text
        #expect(text.contains("HTTP/1.1 201 Created"))
        #expect(text.hasSuffix("hello blob"))
        #expect(try server.server.blobs.store.get(BlobHash(hex: empty)).isEmpty)
        try await server.stop()
    }

    @Test func aThumbnailBlobIsReadableByAReader() async throws {
        let server = try TestServer()
        try Self.makeDocument(server, "album", owner: "alice")
        var access = try #require(try server.server.directory.access.access("album"))
        access.members["rita"] = .reader
        try server.server.directory.access.setAccess(access, for: "album")
        let thumbnail = BlobHTTP.randomBytes(20_000, seed: 7)
        let hash = try BlobHTTP.sha256(thumbnail)
        let put = try BlobHTTP.curl(
            port: server.port, "PUT", BlobHTTP.blobPath("album", hash), token: server.token("alice"),
            headers: ["Content-Type: image/png"], data: thumbnail)
        #expect(put.status == 201)
        let patch = try await server.request("PATCH", "/v1/documents/album", user: "alice", json: ["thumbnailBlobId": hash])
        #expect(patch.status == 200)
        // The reader finds the thumbnail id on the document and reads it as a document blob.
        let document = try await server.request("GET", "/v1/documents/album", user: "rita")
        let thumbnailID = try #require((document.json as? [String: Any])?["thumbnailBlobId"] as? String)
        let read = try BlobHTTP.curl(
            port: server.port, "GET", BlobHTTP.blobPath("album", thumbnailID), token: server.token("rita"))
        #expect(read.status == 200)
        #expect(read.body == thumbnail)
        #expect(read.headers["content-type"] == "image/png")
        // Someone without access to the document cannot, though the hash is known.
        let stranger = try BlobHTTP.curl(
            port: server.port, "GET", BlobHTTP.blobPath("album", thumbnailID), token: server.token("sam"))
        #expect(stranger.status == 403)
        #expect(stranger.body.count < 400 && !stranger.body.starts(with: thumbnail.prefix(16)))
        try await server.stop()
    }

    @Test func aHashKnownFromAnotherDocumentGivesNoAccess() async throws {
        let server = try TestServer()
        try Self.makeDocument(server, "private", owner: "alice")
        try Self.makeDocument(server, "mine", owner: "mallory")
        let secret = BlobHTTP.randomBytes(5000, seed: 9)
        let hash = try BlobHTTP.sha256(secret)
        #expect(try BlobHTTP.curl(
            port: server.port, "PUT", BlobHTTP.blobPath("private", hash), token: server.token("alice"), data: secret
        ).status == 201)
        let probe = try BlobHTTP.curl(port: server.port, "GET", BlobHTTP.blobPath("mine", hash), token: server.token("mallory"))
        #expect(probe.status == 404)
        #expect(probe.errorCode == "BLOB_NOT_FOUND")
        try await server.stop()
    }

    @Test func blobPathsAreReservedInDocumentIDs() throws {
        let server = try TestServer()
        let hash = String(repeating: "a", count: 64)
        for id in ["x/blobs", "x/blobs/\(hash)"] {
            #expect(throws: AccordError.self) { try server.server.directory.create(DocumentID(validating: id), owner: "a") }
        }
        try server.server.directory.create("blobs", owner: "a")
        try server.server.directory.create("x/blobs/short", owner: "a")
    }
}
