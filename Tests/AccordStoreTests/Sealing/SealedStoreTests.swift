import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// Sealing at rest under the whole store: the sealed adapter keeps the adapter
/// promises, and documents round-trip through it without plaintext on disk.
@Suite struct SealedStoreTests {
    @Test func sealedAdaptersConform() throws {
        let key = try SealingKey.generate()
        let memory = runStorageConformance { SealedStorageAdapter(wrapping: MemoryStorageAdapter(), key: key) }
        #expect(memory.passed, "\(memory)")
        let directory = try TemporaryDirectory()
        let file = runStorageConformance(.persistent { slot in
            SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: directory.file("sealed-\(slot).db")), key: key)
        })
        #expect(file.passed, "\(file)")
    }

    @Test func documentsRoundTripSealedAndTheFileHoldsNoPlaintext() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("sealed.db")
        let key = try SealingKey.generate()
        let id = DocumentID(rawValue: "diary")!
        let secret = "the-quick-brown-fox-secret"
        do {
            let storage = SerialStorage(SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: key))
            let store = DocumentStore(storage: storage, options: DocumentStoreTests.manualFlush)
            let opened = try store.open(id, createIfMissing: true)
            try opened.doc.getText("t").insert(0, secret)
            try opened.close()
            try store.compact(id)
            let again = try store.open(id)
            try again.doc.getText("t").insert(0, secret)
            try again.close()
        }
        for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "plaintext in \(file)")
        }
        let storage = SerialStorage(SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: key))
        let loaded = try DocumentStore(storage: storage).load(id)
        #expect(try loaded.getText("t").string == secret + secret)

        let wrongKey = SerialStorage(SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: try SealingKey.generate()))
        let error = #expect(throws: AccordError.self) { try DocumentStore(storage: wrongKey).load(id) }
        #expect(error?.code == .storageCorrupt)
    }
}

/// A wrong key is refused before anything is read or written.
@Suite struct SealingKeyCheckTests {
    @Test func aWrongKeyIsRefusedAtTheFirstCallAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("sealed.db")
        let key = try SealingKey.generate()
        do {
            let adapter = SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: key)
            try adapter.commit([.put(StorageCategory("a"), key: "k", value: [1, 2, 3])])
        }
        let wrong = SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: try SealingKey.generate())
        // Even a write to a new place, which would not read anything sealed, is refused.
        let refused = #expect(throws: AccordError.self) {
            try wrong.commit([.put(StorageCategory("b"), key: "new", value: [9])])
        }
        #expect(refused?.code == .storageCorrupt)
        let listing = #expect(throws: AccordError.self) { try wrong.keys(in: StorageCategory("a")) }
        #expect(listing?.code == .storageCorrupt)
        let raw = try SQLiteStorageAdapter(path: path)
        #expect(try raw.keys(in: StorageCategory("b")).isEmpty)

        let right = SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: key)
        #expect(try right.read(StorageCategory("a"), key: "k") == [1, 2, 3])
    }

    @Test func aDocumentStoreWithTheWrongKeyCannotCreateDocuments() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("sealed.db")
        let key = try SealingKey.generate()
        try DocumentStore(storage: SerialStorage(SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: key)))
            .create("first")
        let wrong = DocumentStore(storage: SerialStorage(
            SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: try SealingKey.generate())))
        let error = #expect(throws: AccordError.self) { try wrong.create("second") }
        #expect(error?.code == .storageCorrupt)
    }
}
