import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// Sample data with a distinctive plaintext in it, and checks shared by the sealing tests.
private enum Sample {
    static let docs = StorageCategory("docs")
    static let blobs = StorageCategory("blobs")
    /// A byte string that cannot appear by chance in sealed bytes or SQLite's own pages.
    static let canary = Array("ACCORD-SEALING-CANARY-7f3a9c0e".utf8)
    static let large = [UInt8](repeating: 0x42, count: 40_000) + canary + [UInt8](repeating: 0x43, count: 40_000)

    static let batch: [StorageOperation] = [
        .put(docs, key: "a", value: canary + [1, 2, 3]),
        .put(docs, key: "b", value: []),
        .put(blobs, key: "a", value: large),
        .append(docs, key: "a", sequence: 1, value: canary),
        .append(docs, key: "a", sequence: 2, value: canary + [2]),
        .append(docs, key: "a", sequence: 10, value: []),
        .append(blobs, key: "log", sequence: 5, value: canary + [5]),
    ]

    /// Every plaintext of `batch` reads back through `adapter`.
    static func expectReadsBack(_ adapter: any StorageAdapter) throws {
        #expect(try adapter.read(docs, key: "a") == canary + [1, 2, 3])
        #expect(try adapter.read(docs, key: "b") == [])
        #expect(try adapter.read(blobs, key: "a") == large)
        #expect(try adapter.read(docs, key: "missing") == nil)
        #expect(try adapter.keys(in: docs) == ["a", "b"])
        #expect(try adapter.keys(in: blobs) == ["a"])
        #expect(try adapter.logKeys(in: docs) == ["a"])
        #expect(try adapter.logKeys(in: blobs) == ["log"])
        #expect(try adapter.lastSequence(docs, key: "a") == 10)
        #expect(try adapter.readLog(docs, key: "a") == [
            StorageLogEntry(sequence: 1, value: canary),
            StorageLogEntry(sequence: 2, value: canary + [2]),
            StorageLogEntry(sequence: 10, value: []),
        ])
        #expect(try adapter.readLog(docs, key: "a", after: 1, limit: 1) == [StorageLogEntry(sequence: 2, value: canary + [2])])
        #expect(try adapter.readLog(blobs, key: "log") == [StorageLogEntry(sequence: 5, value: canary + [5])])
        #expect(try adapter.readLog(blobs, key: "none") == [])
    }

    /// Every stored value of `adapter` in the sample's categories: records and log entries.
    static func rawValues(_ adapter: any StorageAdapter) throws -> [[UInt8]] {
        var values: [[UInt8]] = []
        for category in [docs, blobs] {
            for key in try adapter.keys(in: category) {
                if let value = try adapter.read(category, key: key) { values.append(value) }
            }
            for key in try adapter.logKeys(in: category) {
                values += try adapter.readLog(category, key: key).map(\.value)
            }
        }
        return values
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    /// The bytes of every file in `directory` (the database, its WAL and journal).
    static func fileContents(in directory: TemporaryDirectory) throws -> [UInt8] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).flatMap { name in
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file(name))))
        }
    }
}

@Suite struct SealedStorageAdapterTests {
    private let key: SealingKey
    private let inner = MemoryStorageAdapter()
    private let sealed: SealedStorageAdapter

    init() throws {
        key = try SealingKey.generate()
        sealed = SealedStorageAdapter(wrapping: inner, key: key)
        try sealed.commit(Sample.batch)
    }

    /// Expects `body` to throw `STORAGE_CORRUPT` and returns the error's details.
    @discardableResult
    private func expectCorrupt(
        _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String: String] {
        let error = #expect(throws: AccordError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.code == .storageCorrupt, "\(String(describing: error))", sourceLocation: sourceLocation)
        return error?.details ?? [:]
    }

    private func raw(_ category: StorageCategory, _ key: String) throws -> [UInt8] {
        try #require(try inner.read(category, key: key))
    }

    @Test func recordsAndLogsRoundTripThroughMemory() throws {
        try Sample.expectReadsBack(sealed)
        // The operations without values pass through.
        try sealed.commit([
            .delete(Sample.docs, key: "b"), .truncateLog(Sample.docs, key: "a", through: 1),
            .deleteLog(Sample.blobs, key: "log"),
        ])
        #expect(try sealed.keys(in: Sample.docs) == ["a"])
        #expect(try sealed.readLog(Sample.docs, key: "a").map(\.sequence) == [2, 10])
        #expect(try sealed.logKeys(in: Sample.blobs) == [])
        try sealed.wipeAll()
        #expect(try Sample.rawValues(inner).isEmpty)
    }

    @Test func theWrappedAdapterOnlySeesSealedBytes() throws {
        let plaintexts = try Sample.rawValues(sealed)
        let stored = try Sample.rawValues(inner)
        #expect(plaintexts.filter { Sample.contains($0, Sample.canary) }.count == 5)  // the scan can find it
        #expect(stored.count == plaintexts.count)
        for (value, plaintext) in zip(stored, plaintexts) {
            #expect(!Sample.contains(value, Sample.canary))
            #expect(value.count == plaintext.count + 41)  // version + nonce + tag
            #expect(value.first == 1)  // format version
        }
    }

    @Test func aRejectedBatchFromTheWrappedAdapterPassesThrough() throws {
        let error = #expect(throws: AccordError.self) {
            try sealed.commit([.put(Sample.docs, key: "new", value: [1]), .append(Sample.docs, key: "a", sequence: 3, value: [])])
        }
        #expect(error?.code == .invalidArgument)
        #expect(try sealed.read(Sample.docs, key: "new") == nil)
    }

    @Test func anotherKeyCannotOpenAnything() throws {
        // Without the key-check marker (SealingKeyCheckTests covers it), every value
        // still refuses to open on its own.
        try inner.commit([.delete(StorageCategory("accord.sealing"), key: "key-check")])
        let other = SealedStorageAdapter(wrapping: inner, key: try SealingKey.generate())
        let details = expectCorrupt { _ = try other.read(Sample.docs, key: "a") }
        #expect(details == ["category": "docs", "key": "a"])
        expectCorrupt { _ = try other.read(Sample.docs, key: "b") }  // even an empty value is authenticated
        let logDetails = expectCorrupt { _ = try other.readLog(Sample.docs, key: "a") }
        #expect(logDetails == ["category": "docs", "key": "a", "sequence": "1"])
        // Names and sequences are in clear, so they still read.
        #expect(try other.keys(in: Sample.docs) == ["a", "b"])
        #expect(try other.lastSequence(Sample.docs, key: "a") == 10)
    }

    /// Byte offsets into the 74-byte sealed value of `docs/a` (33-byte plaintext): version 0,
    /// nonce 1...24, ciphertext 25...57, tag 58...73.
    @Test(arguments: [0, 1, 24, 25, 40, 57, 58, 73])
    func aFlippedBitInARecordIsCorrupt(offset: Int) throws {
        var value = try raw(Sample.docs, "a")
        #expect(value.count == 74)
        value[offset] ^= 0x10
        try inner.commit([.put(Sample.docs, key: "a", value: value)])
        expectCorrupt { _ = try sealed.read(Sample.docs, key: "a") }
    }

    @Test func aFlippedBitInALogEntryIsCorrupt() throws {
        var entries = try inner.readLog(Sample.docs, key: "a")
        entries[1].value[30] ^= 0x01
        try inner.commit([.deleteLog(Sample.docs, key: "a")] + entries.map {
            .append(Sample.docs, key: "a", sequence: $0.sequence, value: $0.value)
        })
        #expect(try sealed.readLog(Sample.docs, key: "a", after: 0, limit: 1).map(\.sequence) == [1])
        let details = expectCorrupt { _ = try sealed.readLog(Sample.docs, key: "a") }
        #expect(details["sequence"] == "2")
    }

    @Test(arguments: [0, 1, 25, 40, 41, 73])
    func aTruncatedValueIsCorrupt(length: Int) throws {
        let value = try raw(Sample.docs, "a")
        try inner.commit([.put(Sample.docs, key: "a", value: Array(value.prefix(length)))])
        expectCorrupt { _ = try sealed.read(Sample.docs, key: "a") }
    }

    @Test func aRecordMovedToAnotherKeyOrCategoryIsCorrupt() throws {
        let value = try raw(Sample.docs, "a")
        try inner.commit([
            .put(Sample.docs, key: "c", value: value),
            .put(Sample.blobs, key: "a", value: value),
            .append(Sample.docs, key: "a", sequence: 11, value: value),
        ])
        #expect(expectCorrupt { _ = try sealed.read(Sample.docs, key: "c") }["key"] == "c")
        #expect(expectCorrupt { _ = try sealed.read(Sample.blobs, key: "a") }["category"] == "blobs")
        // A record value is not a log entry even at the same category and key.
        #expect(expectCorrupt { _ = try sealed.readLog(Sample.docs, key: "a", after: 10) }["sequence"] == "11")
        // The value still opens where it was sealed.
        #expect(try sealed.read(Sample.docs, key: "a") == Sample.canary + [1, 2, 3])
    }

    @Test func namesAreLengthPrefixedSoNoTwoPlacesSealAlike() throws {
        try sealed.commit([.put(StorageCategory("ab"), key: "c", value: [9])])
        let value = try raw(StorageCategory("ab"), "c")
        try inner.commit([.put(StorageCategory("a"), key: "bc", value: value), .put(StorageCategory("abc"), key: "", value: value)])
        expectCorrupt { _ = try sealed.read(StorageCategory("a"), key: "bc") }
        expectCorrupt { _ = try sealed.read(StorageCategory("abc"), key: "") }
        #expect(try sealed.read(StorageCategory("ab"), key: "c") == [9])
    }

    @Test func aLogEntryMovedToAnotherSequenceOrLogIsCorrupt() throws {
        let first = try #require(try inner.readLog(Sample.docs, key: "a").first)
        try inner.commit([
            .append(Sample.docs, key: "a", sequence: 20, value: first.value),
            .append(Sample.docs, key: "z", sequence: 1, value: first.value),
            .append(Sample.blobs, key: "a", sequence: 1, value: first.value),
            .put(Sample.docs, key: "fromLog", value: first.value),
        ])
        #expect(expectCorrupt { _ = try sealed.readLog(Sample.docs, key: "a", after: 10) }["sequence"] == "20")
        #expect(expectCorrupt { _ = try sealed.readLog(Sample.docs, key: "z") }["key"] == "z")
        #expect(expectCorrupt { _ = try sealed.readLog(Sample.blobs, key: "a") }["category"] == "blobs")
        expectCorrupt { _ = try sealed.read(Sample.docs, key: "fromLog") }
        #expect(try sealed.readLog(Sample.docs, key: "a", after: 0, limit: 3).count == 3)
    }

    @Test func sealingTheSamePlaintextTwiceGivesDifferentBytes() throws {
        let first = try raw(Sample.docs, "a")
        try sealed.commit([.put(Sample.docs, key: "a", value: Sample.canary + [1, 2, 3])])
        let second = try raw(Sample.docs, "a")
        #expect(first != second)
        #expect(first[1..<25] != second[1..<25])  // a fresh nonce each time
        #expect(try sealed.read(Sample.docs, key: "a") == Sample.canary + [1, 2, 3])
    }
}

@Suite struct SealedSQLiteStorageTests {
    @Test func everythingReadsBackAfterReopeningWithTheSameKey() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("store.db")
        let keyPath = dir.file("store.key")
        try SealingKey.generate().write(toFile: keyPath)
        do {
            let adapter = SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: try SealingKey(contentsOfFile: keyPath))
            try adapter.commit(Sample.batch)
            try Sample.expectReadsBack(adapter)
        }
        let reopened = SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: try SealingKey(contentsOfFile: keyPath))
        try Sample.expectReadsBack(reopened)

        let other = SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: try SealingKey.generate())
        let error = #expect(throws: AccordError.self) { _ = try other.readLog(Sample.blobs, key: "log") }
        #expect(error?.code == .storageCorrupt)
    }

    @Test func theDatabaseFilesNeverHoldThePlaintext() throws {
        let sealedDir = try TemporaryDirectory()
        do {
            let adapter = SealedStorageAdapter(
                wrapping: try SQLiteStorageAdapter(path: sealedDir.file("sealed.db")), key: try SealingKey.generate())
            try adapter.commit(Sample.batch)
            let files = try Sample.fileContents(in: sealedDir)
            #expect(!Sample.contains(files, Sample.canary))
            #expect(Sample.contains(files, Array("log".utf8)))  // names are in clear, and the scan sees them
        }
        // The same scan over an unsealed database finds the plaintext, so it can fail.
        let plainDir = try TemporaryDirectory()
        let plain = try SQLiteStorageAdapter(path: plainDir.file("plain.db"))
        try plain.commit(Sample.batch)
        #expect(Sample.contains(try Sample.fileContents(in: plainDir), Sample.canary))
    }
}
