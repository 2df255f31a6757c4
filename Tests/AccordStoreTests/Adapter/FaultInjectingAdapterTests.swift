import Testing
import AccordCRDT
import AccordStore
import AccordTesting

@Suite struct FaultInjectingAdapterTests {
    private let notes = StorageCategory("notes")

    /// Counting every call, the third call fails and the calls around it pass through.
    @Test func failsExactlyTheNthCall() throws {
        let inner = MemoryStorageAdapter()
        let adapter = FaultInjectingAdapter(wrapping: inner, failingCall: 3)
        try adapter.commit([.put(notes, key: "a", value: [1])])  // 1
        #expect(try adapter.read(notes, key: "a") == [1])  // 2
        let error = #expect(throws: AccordError.self) { try adapter.keys(in: notes) }  // 3
        #expect(error?.code == .storageError)
        #expect(error?.details["operation"] == "keys")
        #expect(error?.details["call"] == "3")
        #expect(try adapter.keys(in: notes) == ["a"])  // 4
        try adapter.commit([.append(notes, key: "log", sequence: 1, value: [2])])  // 5
        #expect(try adapter.readLog(notes, key: "log") == [StorageLogEntry(sequence: 1, value: [2])])  // 6
        #expect(adapter.countedCalls == 6)
        #expect(adapter.injectedFaults == 1)
    }

    /// A failing commit must not reach the wrapped adapter: nothing of the batch is kept.
    @Test func aFailedCommitAppliesNothing() throws {
        let inner = MemoryStorageAdapter()
        let adapter = FaultInjectingAdapter(wrapping: inner, failingCall: 2, counting: .writesOnly, fault: .diskFull)
        try adapter.commit([.put(notes, key: "a", value: [1])])
        #expect(try adapter.read(notes, key: "b") == nil)  // reads are not counted
        let error = #expect(throws: AccordError.self) {
            try adapter.commit([.put(notes, key: "a", value: [2]), .put(notes, key: "b", value: [2]),
                                .append(notes, key: "log", sequence: 1, value: [])])
        }
        #expect(error?.code == .storageFull)
        #expect(error?.details["operation"] == "commit")
        #expect(try inner.read(notes, key: "a") == [1])
        #expect(try inner.read(notes, key: "b") == nil)
        #expect(try inner.logKeys(in: notes).isEmpty)
        try adapter.commit([.put(notes, key: "b", value: [3])])  // the third write passes
        #expect(try inner.read(notes, key: "b") == [3])
        #expect(adapter.countedCalls == 3)
    }

    @Test func aFailedWipeKeepsEverything() throws {
        let inner = MemoryStorageAdapter()
        let adapter = FaultInjectingAdapter(wrapping: inner, failingCall: 2, counting: .writesOnly)
        try adapter.commit([.put(notes, key: "a", value: [1])])
        #expect(throws: AccordError.self) { try adapter.wipeAll() }
        #expect(try inner.read(notes, key: "a") == [1])
        try adapter.wipeAll()
        #expect(try inner.read(notes, key: "a") == nil)
    }

    /// A persistent fault fails every counted call from the N-th on, like a disk
    /// that stays full; disarming it lets calls through again.
    @Test func persistentFaultKeepsFailingUntilDisarmed() throws {
        let adapter = FaultInjectingAdapter(
            wrapping: MemoryStorageAdapter(), failingCall: 2, counting: .writesOnly, fault: .diskFull, persistent: true)
        try adapter.commit([.put(notes, key: "a", value: [1])])
        for _ in 0..<3 {
            #expect(throws: AccordError.self) { try adapter.commit([.put(notes, key: "b", value: [1])]) }
        }
        #expect(try adapter.read(notes, key: "a") == [1])
        #expect(adapter.injectedFaults == 3)
        adapter.failingCall = nil
        try adapter.commit([.put(notes, key: "b", value: [2])])
        #expect(try adapter.read(notes, key: "b") == [2])
    }

    /// With no fault armed it is a faithful wrapper: it passes the conformance suite.
    @Test func unarmedWrapperConforms() {
        let report = runStorageConformance { FaultInjectingAdapter(wrapping: MemoryStorageAdapter(), failingCall: nil) }
        #expect(report.passed, "\(report)")
    }
}
