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
