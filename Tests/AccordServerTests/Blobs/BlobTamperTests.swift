import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing

@testable import AccordServer

/// A content file altered on disk is `STORAGE_CORRUPT` and none of its bytes are
/// served: checked before the first byte (also after an earlier GET verified it), and,
/// for a change while a body is being sent, by holding back the last slice.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct BlobTamperTests {
    static func alter(_ path: String, at offset: UInt64) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: offset)
        let byte = try handle.read(upToCount: 1) ?? Data([0])
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data([byte[0] ^ 0x5a]))
        try handle.close()
    }

    @Test func anAlteredFileIsStorageCorruptAndNeverServed() async throws {
        let server = try TestServer()
        try server.server.directory.create("d", owner: "alice")
        let token = server.token("alice")
        let content = BlobHTTP.randomBytes(1_500_000, seed: 31)
        let hash = try BlobHTTP.sha256(content)
        let path = BlobHTTP.blobPath("d", hash)
        #expect(try BlobHTTP.curl(port: server.port, "PUT", path, token: token, data: content).status == 201)
        // A first GET verifies the file and remembers it as good.
        #expect(try BlobHTTP.curl(port: server.port, "GET", path, token: token).body == content)
        let file = try #require(server.server.blobs.store.directory?.path) + "/" + hash
        try Self.alter(file, at: 700_000)
        for headers in [[], ["Range: bytes=0-99"], ["Range: bytes=700000-700010"]] {
            let get = try BlobHTTP.curl(port: server.port, "GET", path, token: token, headers: headers)
            #expect(get.status == 500, "\(headers)")
            #expect(get.errorCode == "STORAGE_CORRUPT", "\(headers)")
            #expect(get.body.count < 1000 && !get.body.starts(with: content.prefix(16)), "\(headers)")
        }
        // Uploading the same bytes again replaces the damaged file (the stored copy is
        // checked before a re-upload is answered "already stored").
        let repaired = try BlobHTTP.curl(port: server.port, "PUT", path, token: token, data: content)
        #expect(repaired.status == 200, "\(repaired.text)")
        #expect(try BlobHTTP.curl(port: server.port, "GET", path, token: token).body == content)
        #expect(try server.server.blobs.store.get(BlobHash(hex: hash)) == content)
        // Shortened: refused as well.
        #expect(truncate(file, 1000) == 0)
        let short = try BlobHTTP.curl(port: server.port, "GET", path, token: token)
        #expect(short.errorCode == "STORAGE_CORRUPT")
        try await server.stop()
    }

    @Test func aFileChangedWhileItIsSentEndsTheBodyShort() throws {
        let directory = try TemporaryDirectory()
        let documents = try DocumentStore(path: directory.path + "/s.sqlite")
        defer { try? documents.close() }
        let store = try BlobStore(storage: documents.storage)
        let content = BlobHTTP.randomBytes(3 << 20, seed: 32)
        let info = try store.put(content)
        let reader = try #require(try store.contentReader(info.hash))
        var corruptReported = false
        let stream = try BlobFileBodyStream(reader: reader, start: 0, end: info.size) { corruptReported = true }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var sent: [UInt8] = []
        let first = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
        sent += buffer[..<first]
        try Self.alter(store.directory!.path + "/" + info.hash.hex, at: 2 << 20)
        var failed = false
        while sent.count < stream.length {
            do {
                let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
                sent += buffer[..<count]
            } catch {
                failed = true
                break
            }
        }
        #expect(failed)
        #expect(corruptReported)
        #expect(sent.count < content.count)
        #expect(Array(sent) == Array(content.prefix(sent.count)))
    }

    @Test func anUntouchedFileStreamsWholeAndARangeStreamsItsPart() throws {
        let directory = try TemporaryDirectory()
        let documents = try DocumentStore(path: directory.path + "/s.sqlite")
        defer { try? documents.close() }
        let store = try BlobStore(storage: documents.storage)
        let content = BlobHTTP.randomBytes(1_000_003, seed: 33)
        let info = try store.put(content)
        for (start, end) in [(Int64(0), info.size), (Int64(10), Int64(999_999))] {
            let stream = try BlobFileBodyStream(reader: try #require(try store.contentReader(info.hash)), start: start, end: end) {}
            var buffer = [UInt8](repeating: 0, count: 256 * 1024)
            var sent: [UInt8] = []
            while sent.count < stream.length {
                let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
                sent += buffer[..<count]
            }
            #expect(sent == Array(content[Int(start)..<Int(end)]))
        }
    }
}
