import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing

@testable import AccordServer

/// Limits refuse from the head, before any byte of the body is accepted (the client
/// here sends only the head and still gets its answer); a hash mismatch keeps nothing;
/// a continued upload must start at the server's offset.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct BlobUploadLimitsTests {
    static func server() throws -> TestServer {
        let server = try TestServer { configuration in
            configuration.maxBlobBytes = 1_000_000
            configuration.blobQuotaPerUser = 2_000_000
        }
        try server.server.directory.create("a", owner: "alice")
        try server.server.directory.create("b", owner: "alice")
        var access = try #require(try server.server.directory.access.access("a"))
        access.members["bob"] = .readWrite
        try server.server.directory.access.setAccess(access, for: "a")
        try server.server.directory.create("bobs", owner: "bob")
        return server
    }

    func uploadsDirectoryFiles(_ server: TestServer) -> [String] {
        guard let directory = server.server.blobs.uploadsDirectory else { return [] }
        return (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    @Test func anOversizedBlobIsRefusedFromItsHeadAlone() async throws {
        let server = try Self.server()
        let hash = String(repeating: "ab", count: 32)
        let before = try StoredBlobState(server.server, documents: ["a"])
        // Only the head goes out; the answer comes without a byte of the body.
        let answer = try BlobHTTP.raw(
            port: server.port, BlobHTTP.putHead(BlobHTTP.blobPath("a", hash), token: server.token("alice"), length: 5_000_000_000))
        #expect(answer.status == 413)
        #expect(answer.errorCode == "BLOB_TOO_LARGE")
        #expect(answer.headers["connection"] == "close")
        // The total of a continued upload counts too.
        let part = try BlobHTTP.raw(
            port: server.port,
            BlobHTTP.putHead(
                BlobHTTP.blobPath("a", hash), token: server.token("alice"), length: 10,
                extra: "Content-Range: bytes 0-9/1000001\r\n"))
        #expect(part.errorCode == "BLOB_TOO_LARGE")
        #expect(try StoredBlobState(server.server, documents: ["a"]) == before)
        #expect(uploadsDirectoryFiles(server).isEmpty)
        try await server.stop()
    }

    @Test func theQuotaCountsOnTheOwnerAndRefusesFromTheHead() async throws {
        let server = try Self.server()
        let alice = server.token("alice")
        let first = BlobHTTP.randomBytes(900_000, seed: 1)
        let second = BlobHTTP.randomBytes(900_000, seed: 2)
        #expect(try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("a", BlobHTTP.sha256(first)), token: alice, data: first).status == 201)
        #expect(try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("b", BlobHTTP.sha256(second)), token: alice, data: second).status == 201)
        // The same content in a second document of the same owner counts once.
        #expect(try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("b", BlobHTTP.sha256(first)), token: alice, data: first).status == 200)
        #expect(try server.server.blobs.usage(of: "alice", excluding: nil) == 1_800_000)
        let before = try StoredBlobState(server.server, documents: ["a", "b", "bobs"])
        let third = String(repeating: "cd", count: 32)
        let refused = try BlobHTTP.raw(
            port: server.port, BlobHTTP.putHead(BlobHTTP.blobPath("a", third), token: alice, length: 300_000))
        #expect(refused.status == 413)
        #expect(refused.errorCode == "QUOTA_EXCEEDED")
        // Bob writes to alice's document: alice's quota is the one that counts.
        let byBob = try BlobHTTP.raw(
            port: server.port, BlobHTTP.putHead(BlobHTTP.blobPath("a", third), token: server.token("bob"), length: 300_000))
        #expect(byBob.errorCode == "QUOTA_EXCEEDED")
        #expect(try StoredBlobState(server.server, documents: ["a", "b", "bobs"]) == before)
        // Bob's own document has his whole quota.
        let small = BlobHTTP.randomBytes(300_000, seed: 3)
        #expect(try BlobHTTP.curl(
            port: server.port, "PUT", BlobHTTP.blobPath("bobs", BlobHTTP.sha256(small)), token: server.token("bob"), data: small
        ).status == 201)
        // An unfinished upload reserves its whole size.
        let big = BlobHTTP.randomBytes(150_000, seed: 4)
        let bigHash = try BlobHTTP.sha256(big)
        let partial = try BlobHTTP.curl(
            port: server.port, "PUT", BlobHTTP.blobPath("a", bigHash), token: alice,
            headers: ["Content-Range: bytes 0-999/150000"], data: Array(big.prefix(1000)))
        #expect(partial.status == 202)
        #expect(try server.server.blobs.usage(of: "alice", excluding: nil) == 1_950_000)
        let overReserved = try BlobHTTP.raw(
            port: server.port, BlobHTTP.putHead(BlobHTTP.blobPath("b", third), token: alice, length: 60_000))
        #expect(overReserved.errorCode == "QUOTA_EXCEEDED")
        try await server.stop()
    }

    /// A small upload (held in memory, no record) reserves its size while its body
    /// arrives: a second upload that would pass the quota with it is refused, and the
    /// reservation ends with the connection.
    @Test func aSmallUploadInProgressReservesItsBytes() async throws {
        let server = try Self.server()
        let alice = server.token("alice")
        for (seed, size) in [(UInt64(11), 900_000), (12, 900_000), (13, 190_000)] {
            let content = BlobHTTP.randomBytes(size, seed: seed)
            let put = try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("a", BlobHTTP.sha256(content)), token: alice, data: content)
            #expect(put.status == 201)
        }
        #expect(try server.server.blobs.usage(of: "alice", excluding: nil) == 1_990_000)
        // Half of an 8,000-byte upload, then nothing more for now.
        let held = BlobHTTP.randomBytes(8_000, seed: 14)
        let heldPath = BlobHTTP.blobPath("a", try BlobHTTP.sha256(held))
        let connection = try RawTCPConnection(port: server.port)
        connection.send(BlobHTTP.putHead(heldPath, token: alice, length: 8_000) + Array(held.prefix(4_000)))
        #expect(BlobHTTP.eventually { (try? server.server.blobs.usage(of: "alice", excluding: nil)) == 1_998_000 })
        let other = BlobHTTP.randomBytes(8_000, seed: 15)
        let refused = try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("b", BlobHTTP.sha256(other)), token: alice, data: other)
        #expect(refused.errorCode == "QUOTA_EXCEEDED")
        // Cut off: nothing kept, the reservation is gone, the other upload fits.
        connection.close()
        #expect(BlobHTTP.eventually { (try? server.server.blobs.usage(of: "alice", excluding: nil)) == 1_990_000 })
        #expect(try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("b", BlobHTTP.sha256(other)), token: alice, data: other).status == 201)
        #expect(try server.server.blobs.store.exists(BlobHash(hex: BlobHTTP.sha256(held))) == false)
        try await server.stop()
    }

    @Test func aHashMismatchKeepsNothing() async throws {
        let server = try Self.server()
        let alice = server.token("alice")
        let content = BlobHTTP.randomBytes(400_000, seed: 5)
        let claimed = try BlobHTTP.sha256(BlobHTTP.randomBytes(400_000, seed: 6))
        let before = try StoredBlobState(server.server, documents: ["a"])
        let whole = try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("a", claimed), token: alice, data: content)
        #expect(whole.status == 422)
        #expect(whole.errorCode == "BLOB_HASH_MISMATCH")
        // In two parts: the first is kept as unfinished, the mismatch at the end drops it all.
        let first = try BlobHTTP.curl(
            port: server.port, "PUT", BlobHTTP.blobPath("a", claimed), token: alice,
            headers: ["Content-Range: bytes 0-199999/400000"], data: Array(content.prefix(200_000)))
        #expect(first.status == 202)
        #expect(first.headers["accord-upload-offset"] == "200000")
        let rest = try BlobHTTP.curl(
            port: server.port, "PUT", BlobHTTP.blobPath("a", claimed), token: alice,
            headers: ["Content-Range: bytes 200000-399999/400000"], data: Array(content.suffix(200_000)))
        #expect(rest.errorCode == "BLOB_HASH_MISMATCH")
        #expect(try StoredBlobState(server.server, documents: ["a"]) == before)
        #expect(uploadsDirectoryFiles(server).isEmpty)
        let head = try BlobHTTP.curl(port: server.port, "HEAD", BlobHTTP.blobPath("a", claimed), token: alice)
        #expect(head.status == 404)
        #expect(head.headers["accord-upload-offset"] == "0")
        try await server.stop()
    }

    @Test func aContinuationMustStartAtTheServersOffset() async throws {
        let server = try Self.server()
        let alice = server.token("alice")
        let content = BlobHTTP.randomBytes(300_000, seed: 8)
        let hash = try BlobHTTP.sha256(content)
        let path = BlobHTTP.blobPath("a", hash)
        let noUpload = try BlobHTTP.curl(
            port: server.port, "PUT", path, token: alice, headers: ["Content-Range: bytes 100-199/300000"],
            data: Array(content[100..<200]))
        #expect(noUpload.status == 409)
        #expect(noUpload.errorCode == "BLOB_UPLOAD_OFFSET_MISMATCH")
        #expect((noUpload.json?["error"] as? [String: Any]).flatMap { $0["details"] as? [String: Any] }?["offset"] as? String == "0")
        #expect(try BlobHTTP.curl(
            port: server.port, "PUT", path, token: alice, headers: ["Content-Range: bytes 0-99999/300000"],
            data: Array(content.prefix(100_000))).status == 202)
        let gap = try BlobHTTP.curl(
            port: server.port, "PUT", path, token: alice, headers: ["Content-Range: bytes 150000-299999/300000"],
            data: Array(content.suffix(150_000)))
        #expect(gap.errorCode == "BLOB_UPLOAD_OFFSET_MISMATCH")
        #expect((gap.json?["error"] as? [String: Any]).flatMap { $0["details"] as? [String: Any] }?["offset"] as? String == "100000")
        let done = try BlobHTTP.curl(
            port: server.port, "PUT", path, token: alice, headers: ["Content-Range: bytes 100000-299999/300000"],
            data: Array(content.suffix(200_000)))
        #expect(done.status == 201)
        #expect(try server.server.blobs.store.get(BlobHash(hex: hash)) == content)
        #expect(uploadsDirectoryFiles(server).isEmpty)
        try await server.stop()
    }
}
