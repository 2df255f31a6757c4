import Foundation
import Testing
import AccordCRDT
import AccordStore
#if canImport(Glibc)
import Glibc
#endif

#if os(Linux)
/// Where automatic compaction runs: beside the editing thread, not in its way.
@Suite struct CompactionPriorityTests {
    /// Automatic compaction runs on a thread 10 nice levels below the thread that
    /// flushed (whose priority it inherits), and leaves that thread's priority alone.
    @Test func backgroundCompactionRunsAtALowerPriority() throws {
        var options = DocumentStore.Options()
        options.flushDelay = nil
        options.compactionMaxEntries = 8
        let store = DocumentStore(storage: .inMemory(), options: options)
        let id = DocumentID(rawValue: "doc")!
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let niceValues = NiceList()
        let subscription = store.observeChanges { change in
            // Announcements of a fold come from the thread that folded.
            if change.kind == .compacted { niceValues.append(getpriority(which, 0)) }
        }
        defer { subscription.cancel() }
        let editingNice = getpriority(which, 0)
        let opened = try store.open(id, createIfMissing: true)
        let text = try opened.doc.getText("t")
        for i in 0..<20 { try text.insert(i, "x") }
        try store.flush()
        store.waitForCompactions()

        #expect(!niceValues.values.isEmpty)
        #expect(niceValues.values.allSatisfy { $0 == min(editingNice + 10, 19) })
        #expect(getpriority(which, 0) == editingNice)
        #expect(try store.metadata(id).snapshotBytes > 0)
        #expect(try store.load(id).getText("t").string == String(repeating: "x", count: 20))
        try opened.close()
    }
}

final class NiceList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Int32] = []
    func append(_ value: Int32) { lock.withLock { items.append(value) } }
    var values: [Int32] { lock.withLock { items } }
}
#endif
