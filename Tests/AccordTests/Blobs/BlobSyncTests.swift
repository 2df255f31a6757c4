import Foundation
import Testing
import Accord
import AccordServer
import AccordTesting

/// Blobs between two clients through a real server (in process): attached offline on
/// one, byte-identical on the other after reconnect; 100 MB each way in bounded memory.
@Suite(.timeLimit(.minutes(5)), .serialized) struct BlobSyncTests {
    let directory: TemporaryDirectory
    let tokens: TokenAuthority
    let server: AccordServer

    init() throws {
        directory = try TemporaryDirectory(prefix: "accord-blob-sync")
        tokens = try TokenAuthority(secret: Array("accord-blob-sync-test-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        configuration.maxBlobBytes = 200 << 20
        configuration.blobQuotaPerUser = nil
        server = try AccordServer(
            configuration: configuration, documents: try DocumentStore(path: directory.file("server.sqlite")), tokens: tokens)
    }

    private func client(_ name: String) throws -> AccordClient {
        let token = tokens.mint(subject: "alice", ttl: 3600)
        return try AccordClient(serverURL: "ws://127.0.0.1:\(server.port)", storePath: directory.file("\(name).sqlite")) { _ in
            token
        }
    }

    private func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    private func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<1200 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("\(what): not in time")
    }

    @Test func aBlobAttachedOfflineAppearsOnTheOtherClientByteIdentical() async throws {
        let phone = try client("phone")
        let laptop = try client("laptop")
        await phone.goOffline()
        await phone.start()
        await laptop.start()

        let trip = try await phone.documents.create("trip")
        let photoBytes = bytes(700_000, seed: 7)
        let photo = try await trip.blobs.put(data: photoBytes, contentType: "image/jpeg", name: "beach.jpg")
        try await trip.edit { doc in try doc.getMap("trip").set("photo", photo.toJSON()) }
        #expect(try await trip.blobs.pendingUploads() == [photo.hash])

        let uploaded = phone.expectEvent(BlobUploadedEvent.self) { $0.hash == photo.hash }
        await phone.useAutomaticMode()
        #expect(try await uploaded.value(timeout: .seconds(30)).size == 700_000)
        #expect(try await trip.blobs.pendingUploads().isEmpty)
        try await waitUntil("trip synced") { await trip.isSynced }
        #expect(try await trip.blobs.list().map(\.hash) == [photo.hash])

        let copy = try await laptop.documents.open("trip", waitForLoad: .network)
        let value = try await copy.edit { doc in try doc.getMap("trip").get("photo")?.value }
        let received = try #require(value.flatMap(BlobRef.init))
        #expect(received == photo)
        #expect(try await copy.blobs.attachments() == [photo])
        // Lazily: nothing was fetched until the first read.
        #expect(try await !copy.blobs.isLocal(received))
        let downloaded = laptop.expectEvent(BlobDownloadedEvent.self) { $0.hash == photo.hash }
        #expect(try await copy.blobs.data(for: received) == photoBytes)
        _ = try await downloaded.value(timeout: .seconds(5))
        // Now local, and readable offline.
        await laptop.goOffline()
        #expect(try await copy.blobs.data(for: received, waitForLoad: .local) == photoBytes)
        await phone.stop()
        await laptop.stop()
        try await server.stop()
    }

    /// `putAll` of small blobs (kept in the databases, sent from memory, stored by the
    /// server in one commit each) and a large one in the same call: all arrive
    /// byte-identical, and a blob stored twice is queued once.
    @Test func manySmallBlobsPutTogetherArriveOnTheOtherClient() async throws {
        let phone = try client("phone")
        let laptop = try client("laptop")
        await phone.goOffline()
        await phone.start()
        await laptop.start()
        let album = try await phone.documents.create("album")
        var contents = (0..<40).map { bytes(1_000 + 400 * $0, seed: 100 + UInt64($0)) }
        contents.append(bytes(200_000, seed: 99))
        contents.append(contents[5])
        let refs = try await album.blobs.putAll(contents.map { (data: $0, contentType: "image/png", name: nil) })
        #expect(refs.count == 42)
        #expect(refs[41] == refs[5])
        #expect(Set(try await album.blobs.pendingUploads()) == Set(refs.map(\.hash)))
        #expect(try await album.blobs.pendingUploads().count == 41)
        let values = refs.map { $0.toJSON() }
        try await album.edit { doc in
            let files = try doc.getMap("files")
            for (index, value) in values.enumerated() { try files.set("f\(index)", value) }
        }
        for (ref, content) in zip(refs, contents) {
            #expect(try await album.blobs.data(for: ref, waitForLoad: .local) == content)
        }
        await phone.useAutomaticMode()
        try await waitUntil("every upload done") { try await album.blobs.pendingUploads().isEmpty }
        #expect(Set(try await album.blobs.list().map(\.hash)) == Set(refs.map(\.hash)))
        let copy = try await laptop.documents.open("album", waitForLoad: .network)
        for (ref, content) in zip(refs, contents) {
            #expect(try await copy.blobs.data(for: ref) == content)
        }
        await phone.stop()
        await laptop.stop()
        try await server.stop()
    }

    @Test func aPinnedDocumentFetchesAttachmentsEagerlyAndManualUploadsWaitForSync() async throws {
        let phone = try client("phone")
        let laptop = try client("laptop")
        await phone.start()
        await laptop.start()
        let notes = try await phone.documents.create("notes")
        try await notes.setSyncMode(.manual)
        try await waitUntil("phone online") { await phone.isOnline }
        let mirror = try await laptop.documents.open("notes", waitForLoad: .network)
        try await mirror.blobs.pinAll()

        let voice = try await notes.blobs.put(data: bytes(50_000, seed: 9), contentType: "audio/ogg")
        try await notes.edit { doc in try doc.getArray("memos").append([voice.toJSON()]) }
        try await Task.sleep(for: .milliseconds(400))
        // Manual: neither the edit nor the blob left.
        #expect(try await notes.blobs.pendingUploads() == [voice.hash])
        let downloaded = laptop.expectEvent(BlobDownloadedEvent.self) { $0.hash == voice.hash }
        try await notes.sync()
        // The pinned mirror fetches it as soon as the update arrives (the first try may
        // come before the upload finished; the retry on a later change or read gets it).
        try await waitUntil("uploaded") { try await notes.blobs.pendingUploads().isEmpty }
        try await waitUntil("mirror has the memo") {
            try await mirror.edit { doc in try doc.getArray("memos").count } == 1
        }
        if try await !mirror.blobs.isLocal(voice) {
            // The eager fetch raced the upload: a pin retries on the next reference.
            try await mirror.blobs.pin(voice)
        }
        _ = try? await downloaded.value(timeout: .seconds(5))
        #expect(try await mirror.blobs.isLocal(voice))
        await phone.stop()
        await laptop.stop()
        try await server.stop()
    }

    @Test func aHundredMegabyteBlobGoesUpAndDownInBoundedMemory() async throws {
        let phone = try client("phone")
        let laptop = try client("laptop")
        await phone.start()
        await laptop.start()
        let size = 100 << 20
        let source = directory.file("big.bin")
        FileManager.default.createFile(atPath: source, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
        var random = SplitMix64(seed: 100)
        for _ in 0..<(size >> 20) {
            var piece = [UInt8](repeating: 0, count: 1 << 20)
            piece.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt64.self)
                for index in words.indices { words[index] = random.next() }
            }
            handle.write(Data(piece))
        }
        try handle.close()

        let big = try await phone.documents.create("big")
        try await waitUntil("phone online") { await phone.isOnline }
        let baseline = try #require(MemoryProbe.residentBytes())
        let probe = MemoryProbe()
        let uploaded = phone.expectEvent(BlobUploadedEvent.self)
        let blob = try await big.blobs.put(fileURL: URL(fileURLWithPath: source), contentType: "application/octet-stream")
        try await big.edit { doc in try doc.getMap("files").set("big", blob.toJSON()) }
        _ = try await uploaded.value(timeout: .seconds(120))
        let uploadPeak = probe.stop()

        let copy = try await laptop.documents.open("big", waitForLoad: .network)
        let downloadProbe = MemoryProbe()
        let target = directory.file("copy.bin")
        try await copy.blobs.export(blob, to: URL(fileURLWithPath: target))
        let downloadPeak = downloadProbe.stop()
        #expect(FileManager.default.contentsEqual(atPath: source, andPath: target))
        // One process holds both clients and the server: each way stays far below the blob.
        #expect(uploadPeak - baseline < 32 << 20, "upload grew RSS by \((uploadPeak - baseline) >> 20) MB")
        #expect(downloadPeak - baseline < 32 << 20, "download grew RSS by \((downloadPeak - baseline) >> 20) MB")
        await phone.stop()
        await laptop.stop()
        try await server.stop()
    }
}

/// Samples this process's resident set every 5 ms until stopped; reports the peak.
final class MemoryProbe: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `peak` and `running` are touched under `lock`.
    private let lock = NSLock()
    private var peak = 0
    private var running = true

    init() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                if let now = Self.residentBytes() { lock.withLock { peak = max(peak, now) } }
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    func stop() -> Int {
        lock.withLock {
            running = false
            return peak
        }
    }

    /// VmRSS from /proc/self/status (Linux); nil elsewhere.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return digits.map { $0 * 1024 }
        }
        return nil
    }
}
