import Testing
import AccordCRDT
import AccordStore

/// The suite must reject an adapter that breaks one promise, and blame the check
/// about that promise; otherwise a passing report would prove nothing.
@Suite struct NonconformingAdapterTests {
    enum Breakage: String, CaseIterable, Sendable {
        case dropsOverwrites, mergesCategories, reversesLogs, storageOrderLogs, ignoresLimit, nonAtomicBatches, keepsLogsOnWipe
        case keepsBlobFilesOnWipe

        func makeAdapter() -> any StorageAdapter {
            switch self {
            case .dropsOverwrites: DropsOverwritesAdapter()
            case .mergesCategories: MergesCategoriesAdapter()
            case .reversesLogs: ReversesLogsAdapter()
            case .storageOrderLogs: StorageOrderLogsAdapter()
            case .ignoresLimit: IgnoresLimitAdapter()
            case .nonAtomicBatches: NonAtomicBatchesAdapter()
            case .keepsLogsOnWipe: KeepsLogsOnWipeAdapter()
            case .keepsBlobFilesOnWipe: KeepsBlobFilesOnWipeAdapter()
            }
        }

        /// The check whose promise this adapter breaks.
        var blamedCheck: StorageConformanceCheck {
            switch self {
            case .dropsOverwrites: .recordOverwrites
            case .mergesCategories: .categoriesSeparate
            case .reversesLogs, .storageOrderLogs, .ignoresLimit: .logOrder
            case .nonAtomicBatches: .atomicBatches
            case .keepsLogsOnWipe, .keepsBlobFilesOnWipe: .wipeAll
            }
        }
    }

    @Test(arguments: Breakage.allCases)
    func suiteRejectsTheAdapterAndNamesTheCheck(_ breakage: Breakage) throws {
        let report = runStorageConformance { breakage.makeAdapter() }
        #expect(!report.passed)
        #expect(report.failedChecks.contains(breakage.blamedCheck), "\(report)")
        let message = try #require(report.result(of: breakage.blamedCheck)).message
        #expect(!message.isEmpty)

        let error = #expect(throws: AccordError.self) { try report.requirePassing() }
        #expect(error?.code == .storageNonconforming)
        let named = error?.details["failed_checks"]?.split(separator: ",").map(String.init) ?? []
        #expect(named.contains(breakage.blamedCheck.rawValue))
    }

    /// The wrappers are faithful apart from their one flaw: they fail only checks that
    /// exercise it (every check reading a log meets reversed logs; merged categories
    /// collide in every multi-category check), so the blame above is not an accident of
    /// a sloppy wrapper.
    @Test(arguments: Breakage.allCases)
    func onlyTheRelatedChecksFail(_ breakage: Breakage) {
        let logReaders: Set<StorageConformanceCheck> = [
            .categoriesSeparate, .valuesExact, .largeValues, .logOrder, .logSequenceEnforced, .logTruncation,
            .atomicBatches, .batchOrder, .randomizedModel,
        ]
        let related: [Breakage: Set<StorageConformanceCheck>] = [
            .dropsOverwrites: [.recordOverwrites, .batchOrder, .atomicBatches, .largeValues, .randomizedModel],
            .mergesCategories: [.categoriesSeparate, .atomicBatches, .wipeAll, .randomizedModel],
            .reversesLogs: logReaders,
            .storageOrderLogs: logReaders,
            .ignoresLimit: [.logOrder, .randomizedModel],
            .nonAtomicBatches: [.atomicBatches, .randomizedModel],
            .keepsLogsOnWipe: [.wipeAll],
            .keepsBlobFilesOnWipe: [.wipeAll],
        ]
        let report = runStorageConformance { breakage.makeAdapter() }
        let unexpected = Set(report.failedChecks).subtracting(related[breakage] ?? [])
        #expect(unexpected.isEmpty, "\(report)")
    }

    /// Storage that forgets everything on close fails the reopen check (and only it).
    @Test func storageThatForgetsOnReopenIsRejected() {
        let report = runStorageConformance(.persistent { _ in MemoryStorageAdapter() })
        #expect(report.failedChecks == [.reopen], "\(report)")
    }
}
