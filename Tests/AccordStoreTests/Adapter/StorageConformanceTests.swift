import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// The built-in adapters keep every promise of `StorageAdapter`.
@Suite struct StorageConformanceTests {
    @Test func memoryAdapterConforms() {
        let report = runStorageConformance { MemoryStorageAdapter() }
        #expect(report.passed, "\(report)")
        #expect(report.result(of: .reopen)?.outcome == .skipped)
        #expect(report.results.count == StorageConformanceCheck.all.count)
    }

    @Test func sqliteFileAdapterConformsAcrossReopen() throws {
        let directory = try TemporaryDirectory(prefix: "accord-conformance")
        let report = runStorageConformance(.persistent { slot in
            try SQLiteStorageAdapter(path: directory.file("store-\(slot).sqlite"))
        })
        #expect(report.passed, "\(report)")
        #expect(report.result(of: .reopen)?.outcome == .passed)
    }

    @Test func sqliteInMemoryAdapterConforms() {
        let report = runStorageConformance { try SQLiteStorageAdapter(path: ":memory:") }
        #expect(report.passed, "\(report)")
    }

    /// A subject that cannot even open fails every check with the error, rather than
    /// throwing out of the suite or passing vacuously.
    @Test func anAdapterThatCannotOpenFailsEveryCheck() {
        let report = runStorageConformance(.persistent { _ in
            throw AccordError(.storageError, "no disk")
        })
        #expect(report.failedChecks == StorageConformanceCheck.all)
        #expect(report.failures.allSatisfy { $0.message.contains("no disk") })
    }

    /// An adapter error in the middle of a check fails that check with the error and
    /// does not escape the suite (every check writes, so every check meets it).
    @Test func adapterErrorsFailTheCheckTheyHappenIn() {
        let report = runStorageConformance {
            FaultInjectingAdapter(wrapping: MemoryStorageAdapter(), failingCall: 1, counting: .writesOnly, fault: .diskFull)
        }
        #expect(report.failedChecks == StorageConformanceCheck.all.filter { $0 != .reopen }, "\(report)")
        #expect(report.failures.allSatisfy { $0.message.contains("STORAGE_FULL") }, "\(report)")
    }

    @Test func requirePassingNamesTheFailedChecks() throws {
        let passing = runStorageConformance { MemoryStorageAdapter() }
        try passing.requirePassing()

        let failing = StorageConformanceReport(results: [
            .init(check: .recordOverwrites, outcome: .passed, message: ""),
            .init(check: .wipeAll, outcome: .failed, message: "logs survived"),
            .init(check: .reopen, outcome: .skipped, message: "cannot reopen"),
            .init(check: .logOrder, outcome: .failed, message: "reversed"),
        ])
        let error = #expect(throws: AccordError.self) { try failing.requirePassing() }
        #expect(error?.code == .storageNonconforming)
        #expect(error?.details["failed_checks"] == "wipe-all,log-order")
        #expect(error?.message.contains("wipe-all: logs survived") == true)
        #expect(failing.description.split(separator: "\n") == [
            "PASS record-overwrites", "FAIL wipe-all: logs survived", "SKIP reopen: cannot reopen",
            "FAIL log-order: reversed",
        ])
    }

    /// Check names are API: apps log and match them.
    @Test func checkNamesAreStable() {
        #expect(StorageConformanceCheck.all.map(\.rawValue) == [
            "record-overwrites", "categories-separate", "values-exact", "keys-exact", "key-order",
            "missing-names", "large-values", "log-order", "log-sequence-enforced", "log-truncation",
            "atomic-batches", "batch-order", "wipe-all", "randomized-model", "reopen",
        ])
        #expect(ErrorCode.storageNonconforming.rawValue == "STORAGE_NONCONFORMING")
        #expect(ErrorCode.allStoreCodes.contains(.storageNonconforming))
    }
}
