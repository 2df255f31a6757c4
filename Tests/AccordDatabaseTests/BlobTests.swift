import AccordCRDT
import AccordDatabase
import AccordStore
import Foundation
import Testing

@Suite struct BlobTests {
    @Test func blobsRoundTripThroughSaveAndReopen() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        let bytes = Data((0..<5_000).map { UInt8($0 % 251) })
        let blob = Blob(contentType: "image/png", data: bytes)
        #expect(blob.digest == nil && blob.length == 5_000)
        let doc = MutableDocument(id: "b").setBlob(blob, forKey: "avatar")
        doc.setArray(MutableArrayObject().addBlob(Blob(contentType: "text/plain", data: Data("hi".utf8))), forKey: "files")
        try collection.save(document: doc)
        let digest = try #require(blob.digest)
        #expect(digest.hasPrefix("sha256-") && digest.count == 7 + 64)
        #expect(blob.toJSON() == #"{"@type":"blob","content_type":"image/png","digest":"\#(digest)","length":5000}"#)
        #expect(Blob.isBlob(properties: blob.properties))
        #expect(!Blob.isBlob(properties: ["@type": "blob"]))

        let database = try fixture.reopened()
        defer { try? database.close() }
        let read = try #require(try database.defaultCollection().document(id: "b"))
        let stored = try #require(read.blob(forKey: "avatar"))
        #expect(stored.contentType == "image/png")
        #expect(stored.length == 5_000)
        #expect(stored.digest == digest)
        #expect(stored.content == bytes)
        #expect(read.array(forKey: "files")?.blob(at: 0)?.content == Data("hi".utf8))
        #expect(read.dictionary(forKey: "avatar") == nil)
        var streamed = Data()
        let stream = try #require(stored.contentStream)
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 1_024)
        while case let n = stream.read(&buffer, maxLength: buffer.count), n > 0 { streamed.append(contentsOf: buffer[..<n]) }
        stream.close()
        #expect(streamed == bytes)
        // The document's JSON holds the blob dictionary.
        #expect(read.toJSON().contains(#""avatar":{"@type":"blob","content_type":"image/png","digest":"\#(digest)""#))
    }

    @Test func aBlobFromAFileIsStreamedIn() throws {
        let fixture = try DatabaseFixture()
        let path = fixture.folder.file("source.bin")
        let bytes = Data((0..<70_000).map { UInt8(($0 * 7) % 256) })
        try bytes.write(to: URL(fileURLWithPath: path))
        let blob = try Blob(contentType: "application/octet-stream", fileURL: URL(fileURLWithPath: path))
        try fixture.collection.save(document: MutableDocument(id: "f").setBlob(blob, forKey: "file"))
        #expect(try fixture.collection.document(id: "f")?.blob(forKey: "file")?.content == bytes)
        let missing = #expect(throws: AccordError.self) {
            try Blob(contentType: "x/y", fileURL: URL(fileURLWithPath: fixture.folder.file("absent")))
        }
        #expect(missing?.code == .ioError)
    }

    @Test func aTamperedBlobIsDetected() throws {
        let fixture = try DatabaseFixture()
        let blob = Blob(contentType: "text/plain", data: Data("the original content".utf8))
        try fixture.collection.save(document: MutableDocument(id: "t").setBlob(blob, forKey: "text"))
        let hex = String(try #require(blob.digest).dropFirst("sha256-".count))
        let file = fixture.folder.file("app.accorddb/store.sqlite.blobs/\(hex)")
        #expect(FileManager.default.fileExists(atPath: file))
        try Data("the tampered content!".utf8).write(to: URL(fileURLWithPath: file))
        let read = try #require(try fixture.collection.document(id: "t")?.blob(forKey: "text"))
        #expect(read.content == nil)
        let error = #expect(throws: AccordError.self) { try read.readContent() }
        #expect(error?.code == .storageCorrupt)
    }
}
