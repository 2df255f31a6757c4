import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// Creating, listing, appending, loading and the metadata row.
@Suite struct DocumentStoreTests {
    static func id(_ raw: String) -> DocumentID { DocumentID(rawValue: raw)! }

    /// Options with no background flush, so tests decide when commits happen.
    static var manualFlush: DocumentStore.Options {
        var options = DocumentStore.Options()
        options.flushDelay = nil
        options.compactInBackground = false
        return options
    }

    @Test func createListAndEditMetadata() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_000))
        var options = Self.manualFlush
        options.now = clock.read
        let store = DocumentStore(storage: .inMemory(), options: options)
        let created = try store.create(Self.id("b"), title: "Notes", tags: ["work"], localOnly: true)
        try store.create(Self.id("a"))
        #expect(created.created == Date(timeIntervalSince1970: 1_000))
        #expect(created.format == "yjs-update-v1")
        #expect(try store.documents().map(\.id.rawValue) == ["a", "b"])
        let duplicate = #expect(throws: AccordError.self) { try store.create(Self.id("a")) }
        #expect(duplicate?.code == .documentExists)
        let missing = #expect(throws: AccordError.self) { try store.metadata(Self.id("zzz")) }
        #expect(missing?.code == .documentNotFound)

        clock.advance(by: 1_000)
        try store.updateMetadata(Self.id("b")) {
            $0.title = "Plans"
            $0.tags.append("2026")
            $0.lastSyncTime = Date(timeIntervalSince1970: 1_500)
        }
        let edited = try store.metadata(Self.id("b"))
        #expect(edited.title == "Plans")
        #expect(edited.tags == ["work", "2026"])
        #expect(edited.localOnly)
        #expect(edited.updated == Date(timeIntervalSince1970: 2_000))
        #expect(edited.lastSyncTime == Date(timeIntervalSince1970: 1_500))
    }

    @Test func invalidDocumentIDsAreRejected() {
        for bad in ["", String(repeating: "x", count: 257), "a\nb", "tab\there"] {
            let error = #expect(throws: AccordError.self) { try DocumentID(validating: bad) }
            #expect(error?.code == .invalidArgument)
        }
        #expect(DocumentID(rawValue: "notes/2026 ✓") != nil)
    }

    @Test func appendedUpdatesLoadBackBeforeAndAfterFlush() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("store.db")
        let id = Self.id("doc")
        let source = Doc()
        var updates: [[UInt8]] = []
        source.onUpdate { update, _ in updates.append(update) }
        let text = try source.getText("t")
        for word in ["hello", " ", "world", "!"] { try text.insert(text.length, word) }

        do {
            let store = try DocumentStore(path: path, options: Self.manualFlush)
            try store.create(id)
            for update in updates { try store.append(update, to: id) }
            // Read-your-writes: the load sees buffered updates before any commit.
            #expect(try store.load(id).getText("t").string == "hello world!")
            try store.flush()
            let metadata = try store.metadata(id)
            #expect(metadata.lastSequence == 4)
            #expect(metadata.logCount == 4)
            // Each stored entry is the update plus a one-byte header (local or received).
            #expect(metadata.size == updates.reduce(0) { $0 + $1.count + 1 })
        }
        let reopened = try DocumentStore(path: path, options: Self.manualFlush)
        let loaded = try reopened.load(id)
        #expect(try loaded.getText("t").string == "hello world!")
        #expect(loaded.encodeStateVector() == source.encodeStateVector())
        // Sequences continue after a restart.
        #expect(try reopened.append(updates[0], to: id) == 5)
    }

    @Test func openDocumentAppendsEveryTransaction() throws {
        let store = DocumentStore(storage: .inMemory(), options: Self.manualFlush)
        let id = Self.id("notes")
        let opened = try store.open(id, createIfMissing: true)
        let map = try opened.doc.getMap("m")
        try opened.doc.transact {
            try map.set("a", 1)
            try map.set("b", "two")
        }
        try map.set("c", true)
        try opened.close()
        #expect(try store.metadata(id).logCount == 2)
        // Edits after close are no longer appended.
        try map.set("d", 4)
        try store.flush()
        #expect(try store.metadata(id).logCount == 2)
        let loaded = try store.load(id)
        #expect(try loaded.getMap("m").json.jsonText == #"{"a":1,"b":"two","c":true}"#)
    }

    @Test func appendValidatedRejectsGarbageAndKeepsTheLog() throws {
        let store = DocumentStore(storage: .inMemory(), options: Self.manualFlush)
        let id = Self.id("d")
        try store.create(id)
        let error = #expect(throws: AccordError.self) { try store.appendValidated([0x01, 0xFF, 0xFF], to: id) }
        #expect(error?.code == .malformedUpdate)
        try store.flush()
        #expect(try store.metadata(id).logCount == 0)
    }

    @Test func appendsBatchIntoFewCommits() throws {
        var options = Self.manualFlush
        options.maxBufferedUpdates = 100
        // A fault injector that injects nothing counts the writes (commits) it passes on.
        let storage = SerialStorage(FaultInjectingAdapter(wrapping: MemoryStorageAdapter(), failingCall: nil, counting: .writesOnly))
        let store = DocumentStore(storage: storage, options: options)
        func commits() throws -> Int { try storage.withAdapter { ($0 as? FaultInjectingAdapter)?.countedCalls ?? -1 } }
        let id = Self.id("keys")
        try store.create(id)
        let commitsBefore = try commits()
        let doc = Doc()
        var updates: [[UInt8]] = []
        doc.onUpdate { update, _ in updates.append(update) }
        let text = try doc.getText("t")
        for i in 0..<1_000 { try text.insert(i, "x") }
        for update in updates { try store.append(update, to: id) }
        try store.flush()
        // 1,000 keystrokes, a threshold of 100: at most ten commits (a threshold
        // commit runs in the background and takes whatever is buffered when it
        // starts), not a thousand.
        #expect((1...10).contains(try commits() - commitsBefore))
        #expect(try store.load(id).getText("t").length == 1_000)
    }

    /// Reaching the threshold commits on its own, off the appending thread, with no
    /// timer and no explicit flush.
    @Test func aThresholdCommitsWithoutAnExplicitFlush() async throws {
        var options = Self.manualFlush
        options.maxBufferedUpdates = 10
        let store = DocumentStore(storage: .inMemory(), options: options)
        let id = Self.id("threshold")
        try store.create(id)
        let changes = ChangeList()
        let subscription = store.observeChanges { changes.append($0) }
        defer { subscription.cancel() }
        let update = Doc().encodeStateAsUpdate()
        for _ in 0..<10 { try store.append(update, to: id) }
        var waited = 0
        while try store.metadata(id).logCount < 10 && waited < 2_000 {
            try await Task.sleep(for: .milliseconds(5))
            waited += 5
        }
        #expect(try store.metadata(id).logCount == 10)
        #expect(changes.values.map(\.kind) == [.appended(1...10)])
    }

    @Test func backgroundFlushCommitsWithoutAnExplicitFlush() async throws {
        var options = DocumentStore.Options()
        options.flushDelay = .milliseconds(5)
        let store = DocumentStore(storage: .inMemory(), options: options)
        let id = Self.id("bg")
        try store.create(id)
        let doc = Doc()
        var update: [UInt8] = []
        doc.onUpdate { bytes, _ in update = bytes }
        try doc.getText("t").insert(0, "x")
        try store.append(update, to: id)
        var waited = 0
        while try store.metadata(id).logCount == 0 && waited < 2_000 {
            try await Task.sleep(for: .milliseconds(5))
            waited += 5
        }
        #expect(try store.metadata(id).logCount == 1)
    }
}
