import Foundation
import Testing
import Accord
import AccordTesting

/// `document.blobs` against the store and a fake server that can misbehave: puts are
/// durable and queued, reads fail or download as asked, every download is verified,
/// the cache keeps under its cap without dropping pinned or unsent blobs, and the
/// store's references follow the content.
@Suite(.timeLimit(.minutes(2))) struct BlobClientTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "accord-blob-client")
    }

    private func client(_ name: String, port: Int = 9) throws -> AccordClient {
        try AccordClient(serverURL: "ws://127.0.0.1:\(port)", storePath: directory.file("\(name).sqlite")) { _ in "token" }
    }

    private func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    private func waitUntil(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<400 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("condition not met in time")
    }

    @Test func aPutIsStoredDurablyAndQueuedAcrossRestarts() async throws {
        let phone = try client("phone")
        await phone.goOffline()
        await phone.start()
        let note = try await phone.documents.create("note")
        let content = bytes(5000, seed: 1)
        let blob = try await note.blobs.put(data: content, contentType: "image/png", name: "a.png")
        #expect(blob.size == 5000 && blob.contentType == "image/png" && blob.name == "a.png")
        #expect(try await note.blobs.data(for: blob, waitForLoad: .local) == content)
        #expect(try await note.blobs.pendingUploads() == [blob.hash])
        await phone.stop()

        let again = try client("phone")
        await again.goOffline()
        await again.start()
        let reopened = try await again.documents.open("note")
        #expect(try await reopened.blobs.pendingUploads() == [blob.hash])
        #expect(try await reopened.blobs.data(for: blob, waitForLoad: .local) == content)
        await again.stop()
    }

    @Test func aMissingBlobIsUnavailableOfflineWithoutTheNetwork() async throws {
        let phone = try client("phone")
        await phone.goOffline()
        await phone.start()
        let note = try await phone.documents.create("note")
        let missing = try BlobRef(contentType: "text/plain", data: Array("not here".utf8))
        await #expect(throws: AccordError.self) { try await note.blobs.data(for: missing, waitForLoad: .local) }
        do {
            _ = try await note.blobs.data(for: missing, waitForLoad: .local)
        } catch {
            #expect(error.code == .blobUnavailableOffline)
        }
        let unavailable = phone.expectEvent(BlobUnavailableEvent.self)
        do {
            _ = try await note.blobs.data(for: missing, waitForLoad: .network)
            Issue.record("a pinned-offline client downloaded")
        } catch {
            #expect(error.code == .blobUnavailableOffline)
        }
        #expect(try await unavailable.value(timeout: .seconds(5)).reason == .offline)
        await phone.stop()
    }

    @Test func downloadsAreVerifiedAndWrongBytesAreDiscarded() async throws {
        let server = try FakeBlobServer()
        defer { server.stop() }
        let laptop = try client("laptop", port: server.port)
        await laptop.start()
        let note = try await laptop.documents.create("note", localOnly: false)
        let good = bytes(300_000, seed: 2)
        let goodBlob = try BlobRef(contentType: "image/jpeg", data: good)
        server.set(goodBlob.hash, .serve(good))
        let downloaded = laptop.expectEvent(BlobDownloadedEvent.self)
        #expect(try await note.blobs.data(for: goodBlob) == good)
        #expect(try await downloaded.value(timeout: .seconds(5)).hash == goodBlob.hash)
        #expect(try await note.blobs.isLocal(goodBlob))

        let expected = bytes(70_000, seed: 3)
        let tampered = try BlobRef(contentType: "image/jpeg", data: expected)
        var wrong = expected
        wrong[1234] ^= 0x40
        server.set(tampered.hash, .wrongBytes(wrong))
        let unavailable = laptop.expectEvent(BlobUnavailableEvent.self) { $0.hash == tampered.hash }
        do {
            _ = try await note.blobs.data(for: tampered)
            Issue.record("wrong bytes were accepted")
        } catch {
            #expect(error.code == .blobHashMismatch)
        }
        #expect(try await unavailable.value(timeout: .seconds(5)).reason == .hashMismatch)
        #expect(try await !note.blobs.isLocal(tampered))

        // Past 1 MiB the download is hashed on a thread of its own, reading back the
        // file: a wrong byte near the end is caught all the same.
        let large = bytes(3 << 20, seed: 4)
        let largeBlob = try BlobRef(contentType: "video/mp4", data: large)
        var largeWrong = large
        largeWrong[large.count - 100] ^= 0x01
        server.set(largeBlob.hash, .wrongBytes(largeWrong))
        let largeUnavailable = laptop.expectEvent(BlobUnavailableEvent.self) { $0.hash == largeBlob.hash }
        do {
            _ = try await note.blobs.data(for: largeBlob)
            Issue.record("wrong large bytes were accepted")
        } catch {
            #expect(error.code == .blobHashMismatch)
        }
        #expect(try await largeUnavailable.value(timeout: .seconds(5)).reason == .hashMismatch)
        #expect(try await !note.blobs.isLocal(largeBlob))
        let store = try BlobStore(storage: laptop.store.storage)
        #expect(try store.list().map(\.hash.hex) == [goodBlob.hash])
        await laptop.stop()
    }

    @Test func failedDownloadsNameTheirReason() async throws {
        let server = try FakeBlobServer()
        defer { server.stop() }
        let laptop = try client("laptop", port: server.port)
        await laptop.start()
        let note = try await laptop.documents.create("note")
        let cases: [(FakeBlobServer.Behaviour?, BlobUnavailableReason, ErrorCode)] = [
            (nil, .notFound, .blobNotFound),
            (.status(403, code: "DOC_ACCESS_DENIED"), .denied, ErrorCode(rawValue: "DOC_ACCESS_DENIED")),
            (.stall(seconds: 3), .timeout, .networkTimeout),
        ]
        for (index, (behaviour, reason, code)) in cases.enumerated() {
            let blob = try BlobRef(contentType: "text/plain", data: Array("case \(index)".utf8))
            if let behaviour { server.set(blob.hash, behaviour) }
            let unavailable = laptop.expectEvent(BlobUnavailableEvent.self) { $0.hash == blob.hash }
            do {
                _ = try await note.blobs.data(for: blob, timeout: .seconds(1))
                Issue.record("case \(index) downloaded")
            } catch {
                #expect(error.code == code, "case \(index)")
            }
            #expect(try await unavailable.value(timeout: .seconds(5)).reason == reason, "case \(index)")
        }
        // The server unreachable altogether.
        let unreachable = try client("alone", port: 9)
        await unreachable.start()
        let other = try await unreachable.documents.create("note")
        let blob = try BlobRef(contentType: "text/plain", data: Array("x".utf8))
        let unavailable = unreachable.expectEvent(BlobUnavailableEvent.self)
        await #expect(throws: AccordError.self) { try await other.blobs.data(for: blob) }
        #expect(try await unavailable.value(timeout: .seconds(5)).reason == .offline)
        await unreachable.stop()
        await laptop.stop()
    }

    @Test func theCacheStaysUnderItsCapKeepingPinnedAndUnsentBlobs() async throws {
        let server = try FakeBlobServer()
        defer { server.stop() }
        let laptop = try client("laptop", port: server.port)
        await laptop.start()
        // Manual: its upload never runs here, so the blob stays unsent.
        let note = try await laptop.documents.create("note")
        try await note.setSyncMode(.manual)
        try await laptop.configureBlobs(BlobOptions(cacheBytes: 60_000))
        let unsent = try await note.blobs.put(data: bytes(20_000, seed: 10), contentType: "application/octet-stream")
        let pinnedBytes = bytes(10_000, seed: 11)
        let pinned = try BlobRef(contentType: "application/octet-stream", data: pinnedBytes)
        server.set(pinned.hash, .serve(pinnedBytes))
        try await note.blobs.pin(pinned)

        var downloaded: [BlobRef] = []
        var evicted: [String] = []
        let evictions = Task {
            var seen: [String] = []
            for await event in laptop.stream(for: BlobUnavailableEvent.self) where event.reason == .evicted {
                seen.append(event.hash)
                if seen.count == 4 { break }
            }
            return seen
        }
        let store = try BlobStore(storage: laptop.store.storage)
        for index in 0..<7 {
            let content = bytes(10_000, seed: 100 + UInt64(index))
            let blob = try BlobRef(contentType: "application/octet-stream", data: content)
            server.set(blob.hash, .serve(content))
            #expect(try await note.blobs.data(for: blob) == content)
            downloaded.append(blob)
            let total = try store.list().reduce(Int64(0)) { $0 + $1.size }
            #expect(total <= 60_000, "after download \(index)")
            #expect(try await note.blobs.isLocal(unsent))
            #expect(try await note.blobs.isLocal(pinned))
        }
        evicted = await evictions.value
        // Least recently used first: the first four downloads went, the last three stay.
        #expect(evicted == downloaded.prefix(4).map(\.hash))
        for blob in downloaded.suffix(3) { #expect(try await note.blobs.isLocal(blob)) }
        // An evicted blob downloads again on demand.
        #expect(try await note.blobs.data(for: downloaded[0]).count == 10_000)
        #expect(try await note.blobs.pendingUploads() == [unsent.hash])
        await laptop.stop()
    }

    @Test func theStoresReferencesFollowTheContent() async throws {
        let phone = try client("phone")
        await phone.goOffline()
        await phone.start()
        // Local-only: nothing is queued, so the references are the content's alone.
        let note = try await phone.documents.create("note", localOnly: true)
        let blob = try await note.blobs.put(data: Array("attached".utf8), contentType: "text/plain")
        let store = try BlobStore(storage: phone.store.storage)
        try await note.edit { doc in
            try doc.getMap("note").set("file", blob.toJSON())
            try doc.getArray("list").append([blob.toJSON()])
        }
        #expect(try await note.blobs.attachments() == [blob])
        try await waitUntil { try store.documents(referencing: blob.blobHash) == ["note"] }
        try await note.edit { doc in try doc.getMap("note").delete("file") }
        try await Task.sleep(for: .milliseconds(200))
        #expect(try store.documents(referencing: blob.blobHash) == ["note"])  // the array still holds it
        try await note.edit { doc in try doc.getArray("list").delete(0) }
        try await waitUntil { try store.documents(referencing: blob.blobHash).isEmpty }
        #expect(try await note.blobs.attachments().isEmpty)
        await phone.stop()
    }
}
