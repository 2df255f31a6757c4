import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing

@testable import AccordServer

/// Collection with an injected clock: unreferenced blobs wait out the grace period, a
/// referenced blob is never removed (also when a reference races a collection), a
/// deleted document's blobs go, and stale unfinished uploads are discarded.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct BlobCollectionTests {
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var milliseconds = UInt64(Date().timeIntervalSince1970 * 1000)
        var now: UInt64 { lock.withLock { milliseconds } }
        func advance(seconds: Double) { lock.withLock { milliseconds += UInt64(seconds * 1000) } }
    }

    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: AccordError?
        var error: AccordError? { lock.withLock { stored } }
        func set(_ error: AccordError) { lock.withLock { stored = error } }
    }

    static func server(_ clock: Clock) throws -> TestServer {
        try TestServer { configuration in
            configuration.now = { clock.now }
            configuration.blobGracePeriodSeconds = 600
            configuration.blobUploadExpirySeconds = 3600
            configuration.blobCollectionIntervalSeconds = 3600  // passes run when the test says
        }
    }

    @Test func anUnreferencedBlobWaitsOutTheGracePeriod() async throws {
        let clock = Clock()
        let server = try Self.server(clock)
        try server.server.directory.create("d", owner: "alice")
        let content = BlobHTTP.randomBytes(100_000, seed: 21)
        let hash = try BlobHTTP.sha256(content)
        let token = server.token("alice")
        #expect(try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("d", hash), token: token, data: content).status == 201)
        let blobs = server.server.blobs
        // Referenced: kept however old it is.
        clock.advance(seconds: 100_000)
        #expect(try blobs.collect().removedBlobs.isEmpty)
        #expect(try BlobHTTP.curl(port: server.port, "DELETE", BlobHTTP.blobPath("d", hash), token: token).status == 204)
        let contentFile = try #require(blobs.store.directory?.path) + "/" + hash
        // The grace period runs from the release, not from when the blob was stored.
        #expect(try blobs.collect().removedBlobs.isEmpty)
        clock.advance(seconds: 599)
        #expect(try blobs.collect().removedBlobs.isEmpty)
        #expect(FileManager.default.fileExists(atPath: contentFile))
        clock.advance(seconds: 2)
        #expect(try blobs.collect().removedBlobs.map(\.hex) == [hash])
        #expect(try !blobs.store.exists(BlobHash(hex: hash)))
        #expect(!FileManager.default.fileExists(atPath: contentFile))
        try await server.stop()
    }

    @Test func aReferenceRacingACollectionNeverLosesItsBlob() async throws {
        let clock = Clock()
        let server = try Self.server(clock)
        try server.server.directory.create("d", owner: "alice")
        let blobs = server.server.blobs
        let content = BlobHTTP.randomBytes(64 * 1024, seed: 22)
        let hash = try blobs.store.put(content, referencedBy: "d").hash
        var kept = 0
        var collectedFirst = 0
        for _ in 0..<300 {
            // Unreferenced and past the grace period: exactly what a collection removes.
            try blobs.noteReleased(hash)
            try blobs.store.removeReference(hash, document: "d")
            clock.advance(seconds: 700)
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            let outcome = Outcome()
            DispatchQueue.global().async(group: group) {
                start.wait()
                do {
                    try blobs.store.addReference(hash, document: "d")
                } catch {
                    outcome.set(error as? AccordError ?? AccordError(.storageError, "\(error)"))
                }
            }
            DispatchQueue.global().async(group: group) {
                start.wait()
                _ = try? blobs.collect()
            }
            start.signal()
            start.signal()
            group.wait()
            if let error = outcome.error {
                // The collection won: the reference found no blob, as a PUT would, which
                // then uploads the bytes again.
                #expect(error.code == .blobNotFound)
                collectedFirst += 1
                try blobs.store.put(content, referencedBy: "d")
            } else {
                kept += 1
            }
            // Whoever won, a referenced blob is stored and reads back whole.
            #expect(try blobs.store.blobs(referencedBy: "d").map(\.hash) == [hash])
            #expect(try blobs.store.get(hash) == content)
            // And a collection right after never takes it.
            _ = try blobs.collect()
            #expect(try blobs.store.exists(hash))
        }
        #expect(kept + collectedFirst == 300)
        try await server.stop()
    }

    @Test func aDeletedDocumentsBlobsAreCollected() async throws {
        let clock = Clock()
        let server = try Self.server(clock)
        let directory = server.server.directory
        try directory.create("gone", owner: "alice")
        try directory.create("stays", owner: "alice")
        let token = server.token("alice")
        let own = BlobHTTP.randomBytes(80_000, seed: 23)
        let shared = BlobHTTP.randomBytes(80_000, seed: 24)
        let unfinished = BlobHTTP.randomBytes(80_000, seed: 25)
        let (ownHash, sharedHash, unfinishedHash) = try (BlobHTTP.sha256(own), BlobHTTP.sha256(shared), BlobHTTP.sha256(unfinished))
        #expect(try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("gone", ownHash), token: token, data: own).status == 201)
        #expect(try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("gone", sharedHash), token: token, data: shared).status == 201)
        #expect(try BlobHTTP.curl(port: server.port, "PUT", BlobHTTP.blobPath("stays", sharedHash), token: token, data: shared).status == 200)
        #expect(try BlobHTTP.curl(
            port: server.port, "PUT", BlobHTTP.blobPath("gone", unfinishedHash), token: token,
            headers: ["Content-Range: bytes 0-999/80000"], data: Array(unfinished.prefix(1000))).status == 202)
        let deleted = try await server.request("DELETE", "/v1/documents/gone", user: "alice")
        #expect(deleted.status == 200)
        #expect(try server.server.blobs.store.blobs(referencedBy: "gone").isEmpty)
        clock.advance(seconds: 601)
        // The delete also asked for a pass in the background, which may have discarded
        // the unfinished upload (its document is gone) already: check the state, not
        // which pass did it.
        _ = try server.server.blobs.collect()
        #expect(try !server.server.blobs.store.exists(BlobHash(hex: ownHash)))
        #expect(try server.server.blobs.uploadRecords().isEmpty)
        #expect(try server.server.blobs.store.get(BlobHash(hex: sharedHash)) == shared)
        #expect(try server.server.blobs.store.blobs(referencedBy: "stays").map(\.hash.hex) == [sharedHash])
        let uploads = try #require(server.server.blobs.uploadsDirectory)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []).isEmpty)
        try await server.stop()
    }

    @Test func aStaleUnfinishedUploadIsDiscarded() async throws {
        let clock = Clock()
        let server = try Self.server(clock)
        try server.server.directory.create("d", owner: "alice")
        let content = BlobHTTP.randomBytes(50_000, seed: 26)
        let hash = try BlobHTTP.sha256(content)
        let path = BlobHTTP.blobPath("d", hash)
        #expect(try BlobHTTP.curl(
            port: server.port, "PUT", path, token: server.token("alice"), headers: ["Content-Range: bytes 0-9999/50000"],
            data: Array(content.prefix(10_000))).status == 202)
        clock.advance(seconds: 3599)
        #expect(try server.server.blobs.collect().expiredUploads == 0)
        clock.advance(seconds: 2)
        #expect(try server.server.blobs.collect().expiredUploads == 1)
        let head = try BlobHTTP.curl(port: server.port, "HEAD", path, token: server.token("alice"))
        #expect(head.headers["accord-upload-offset"] == "0")
        try await server.stop()
    }
}
