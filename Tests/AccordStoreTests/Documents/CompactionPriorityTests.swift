import Foundation
import Testing
import AccordCRDT
@testable import AccordStore
#if canImport(Glibc)
import Glibc
#endif

#if os(Linux)
/// Where automatic compaction's CPU-heavy part runs: beside the editing thread, not in
/// its way.
@Suite struct CompactionPriorityTests {
    let which = __priority_which_t(PRIO_PROCESS.rawValue)

    /// The body runs 10 nice levels below the caller, on another thread, and the
    /// caller's priority is left alone; results and errors come back.
    @Test func atLowPriorityRunsBelowTheCaller() throws {
        let callerNice = getpriority(which, 0)
        let which = which
        let inside = try CompactionWorker.atLowPriority { () throws(AccordError) -> Int32 in getpriority(which, 0) }
        #expect(inside == min(callerNice + 10, 19))
        #expect(getpriority(which, 0) == callerNice)
        let error = #expect(throws: AccordError.self) {
            try CompactionWorker.atLowPriority { () throws(AccordError) -> Int in throw AccordError(.storageFull, "full") }
        }
        #expect(error?.code == .storageFull)
    }

    /// A background fold with the low-priority step still compacts, and the flushing
    /// thread's priority is untouched.
    @Test func backgroundCompactionLeavesTheFlushingThreadsPriorityAlone() throws {
        var options = DocumentStore.Options()
        options.flushDelay = nil
        options.compactionMaxEntries = 8
        let store = DocumentStore(storage: .inMemory(), options: options)
        let id = DocumentID(rawValue: "doc")!
        let editingNice = getpriority(which, 0)
        let opened = try store.open(id, createIfMissing: true)
        let text = try opened.doc.getText("t")
        for i in 0..<20 { try text.insert(i, "x") }
        try store.flush()
        store.waitForCompactions()

        #expect(getpriority(which, 0) == editingNice)
        #expect(try store.metadata(id).snapshotBytes > 0)
        #expect(try store.load(id).getText("t").string == String(repeating: "x", count: 20))
        try opened.close()
    }
}
#endif
