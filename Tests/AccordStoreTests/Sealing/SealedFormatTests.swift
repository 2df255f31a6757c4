import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// Golden values of sealed format version 1, made outside Accord (Python calling
/// libsodium through ctypes) from the documented layout: version byte, 24-byte nonce,
/// ciphertext and tag, with additional data
/// `version | kind | u64le len | category | u64le len | key [| u64le sequence]`.
/// If these stop opening, data sealed by an earlier build would stop opening too.
@Suite struct SealedFormatTests {
    private let key: SealingKey
    private let inner = MemoryStorageAdapter()
    private let sealed: SealedStorageAdapter
    private let docs = StorageCategory("docs")

    /// Key bytes 0...31, nonce bytes 100...123, plaintext "golden record" at record docs/doc-1.
    private let goldenRecord = Hex.decode(
        "016465666768696a6b6c6d6e6f707172737475767778797a7b1b1c95d49a40a9f0e253f24dc2a8ff49070840c87ce6570a268a500162")
    /// Same key and nonce, plaintext "golden entry" at log docs/doc-1, sequence 7.
    private let goldenEntry = Hex.decode(
        "016465666768696a6b6c6d6e6f707172737475767778797a7b1b1c95d49a40a9e7e944ef468f7658984b9034ea1be5bdf7e7a65155")

    init() throws {
        key = try SealingKey(bytes: (0..<32).map { UInt8($0) })
        sealed = SealedStorageAdapter(wrapping: inner, key: key)
    }

    @Test func versionOneValuesMadeElsewhereOpen() throws {
        try inner.commit([
            .put(docs, key: "doc-1", value: goldenRecord),
            .append(docs, key: "doc-1", sequence: 7, value: goldenEntry),
        ])
        #expect(try sealed.read(docs, key: "doc-1") == Array("golden record".utf8))
        #expect(try sealed.readLog(docs, key: "doc-1") == [StorageLogEntry(sequence: 7, value: Array("golden entry".utf8))])
    }

    @Test func ourValuesHaveTheDocumentedShape() throws {
        try sealed.commit([.put(docs, key: "doc-1", value: Array("golden record".utf8))])
        let value = try #require(try inner.read(docs, key: "doc-1"))
        #expect(value.count == goldenRecord.count)
        #expect(value.first == 1)
    }

    @Test func aGoldenValueAtAnotherSequenceIsCorrupt() throws {
        try inner.commit([.append(docs, key: "doc-1", sequence: 8, value: goldenEntry)])
        let error = #expect(throws: AccordError.self) { _ = try sealed.readLog(docs, key: "doc-1") }
        #expect(error?.code == .storageCorrupt)
        #expect(error?.details == ["category": "docs", "key": "doc-1", "sequence": "8"])
    }
}
