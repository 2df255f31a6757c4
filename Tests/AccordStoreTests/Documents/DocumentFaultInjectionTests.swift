import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// Fail the N-th storage call of a document workload, for every N until the workload
/// runs clean: nothing flushed before the failure is lost, nothing corrupt is served,
/// and the store recovers by retrying.
@Suite struct DocumentFaultInjectionTests {
    let id = DocumentID(rawValue: "faulty")!

    @Test(arguments: [FaultInjectingAdapter.Fault.ioError, .diskFull])
    func everyFailurePointIsSurvived(fault: FaultInjectingAdapter.Fault) throws {
        var failingCall = 1
        while true {
            let injected = try runWorkload(failingCall: failingCall, fault: fault)
            if !injected { break }
            failingCall += 1
            try #require(failingCall < 2_000, "the workload never ran clean")
        }
        #expect(failingCall > 20, "the workload should make many storage calls, made \(failingCall - 1)")
    }

    /// Returns whether a fault was injected (false: the workload made fewer calls).
    func runWorkload(failingCall: Int, fault: FaultInjectingAdapter.Fault) throws -> Bool {
        let dir = try TemporaryDirectory()
        let path = dir.file("store.db")
        let adapter = FaultInjectingAdapter(
            wrapping: try SQLiteStorageAdapter(path: path), failingCall: failingCall, fault: fault)
        let storage = SerialStorage(adapter)
        var options = DocumentStoreTests.manualFlush
        options.compactionMaxEntries = 4
        let store = DocumentStore(storage: storage, options: options)
        let comment = Comment(rawValue: "failing call \(failingCall), \(fault.error.code)")

        // Creating can fail too; then there is nothing to check but a clean retry.
        var created = false
        for _ in 0..<2 where !created {
            do { try store.create(id); created = true } catch { try expectStorageFault(error, comment) }
        }
        let doc = Doc()
        let subscription = doc.onUpdate { update, _ in _ = try? store.append(update, to: id) }
        defer { subscription.cancel() }
        let text = try doc.getText("t")
        var flushed = ""  // the text as of the last flush that returned
        for i in 0..<24 {
            try text.insert(text.length, String(i % 10))
            if i % 3 == 2 {
                do {
                    try store.flush()
                    flushed = text.string
                } catch {
                    try expectStorageFault(error, comment)
                    // What a fresh process would read now: everything flushed before, intact.
                    let seen = try DocumentStore(path: path).load(id)
                    #expect(try seen.getText("t").string.hasPrefix(flushed), comment)
                }
            }
        }
        // The one injected failure is behind us: a retry commits everything.
        try store.flush()
        let reloaded = try DocumentStore(path: path).load(id)
        #expect(try reloaded.getText("t").string == text.string, comment)
        #expect(reloaded.encodeStateVector() == doc.encodeStateVector(), comment)
        let injected = try storage.withAdapter { ($0 as? FaultInjectingAdapter)?.injectedFaults ?? 0 }
        return injected > 0
    }

    func expectStorageFault(_ error: any Error, _ comment: Comment) throws {
        let code = (error as? AccordError)?.code
        #expect(code == .storageError || code == .storageFull, "\(error); \(comment)")
    }
}
