/// What ``runStorageConformance(_:)`` tests: a way to get empty adapters and, for
/// persistent storage, to reopen one.
///
/// Every check starts from its own empty storage, so one broken promise shows up in
/// the check about it rather than leaking into the next.
public struct StorageConformanceSubject {
    let open: (_ slot: Int) throws -> any StorageAdapter
    let canReopen: Bool

    /// Storage that lives only as long as its adapter (memory, `:memory:`): every call
    /// of `makeAdapter` must return a new, empty adapter. The reopen check is skipped.
    public static func fresh(_ makeAdapter: @escaping () throws -> any StorageAdapter) -> Self {
        Self(open: { _ in try makeAdapter() }, canReopen: false)
    }

    /// Persistent storage: `open(slot)` opens the storage named by `slot` (for example
    /// a file `store-\(slot).sqlite` in a temporary directory), empty the first time.
    /// The suite releases the previous adapter of a slot before opening it again, and
    /// expects to find everything that was committed to it.
    public static func persistent(_ open: @escaping (_ slot: Int) throws -> any StorageAdapter) -> Self {
        Self(open: open, canReopen: true)
    }
}

/// Checks that an adapter keeps the promises of ``StorageAdapter``; run it in an app's
/// tests against its own adapter before handing the adapter to Accord.
///
/// Each check uses fixed or seeded data, so a failure repeats on every run. The
/// adapter's own errors never escape: a check that meets an unexpected error fails
/// with it. Call ``StorageConformanceReport/requirePassing()`` to turn failures into
/// one `STORAGE_NONCONFORMING` error.
///
/// ```swift
/// try runStorageConformance(.persistent { slot in
///     try MyAdapter(file: dir.appending("store-\(slot)"))
/// }).requirePassing()
/// ```
public func runStorageConformance(_ subject: StorageConformanceSubject) -> StorageConformanceReport {
    var results: [StorageConformanceReport.Result] = []
    for (slot, check) in StorageConformanceCheck.all.enumerated() {
        guard let body = conformanceChecks[check] else { continue }
        let context = ConformanceContext(subject: subject, slot: slot)
        let outcome: StorageConformanceReport.Outcome
        var message = ""
        do {
            try body(context)
            outcome = .passed
        } catch let skip as ConformanceSkip {
            outcome = .skipped
            message = skip.reason
        } catch let failure as ConformanceFailure {
            outcome = .failed
            message = failure.message
        } catch {
            outcome = .failed
            message = "unexpected error: \(error)"
        }
        results.append(.init(check: check, outcome: outcome, message: message))
    }
    return StorageConformanceReport(results: results)
}

/// Runs the suite on storage that cannot be reopened (see ``StorageConformanceSubject/fresh(_:)``):
/// every call of `makeAdapter` must return a new, empty adapter.
public func runStorageConformance(_ makeAdapter: @escaping () throws -> any StorageAdapter) -> StorageConformanceReport {
    runStorageConformance(.fresh(makeAdapter))
}

/// The checks by name; each lives in a file of its own under `Conformance/`.
private let conformanceChecks: [StorageConformanceCheck: @Sendable (ConformanceContext) throws -> Void] = [
    .recordOverwrites: checkRecordOverwrites,
    .categoriesSeparate: checkCategoriesSeparate,
    .valuesExact: checkValuesExact,
    .keysExact: checkKeysExact,
    .keyOrder: checkKeyOrder,
    .missingNames: checkMissingNames,
    .largeValues: checkLargeValues,
    .logOrder: checkLogOrder,
    .logSequenceEnforced: checkLogSequenceEnforced,
    .logTruncation: checkLogTruncation,
    .atomicBatches: checkAtomicBatches,
    .batchOrder: checkBatchOrder,
    .wipeAll: checkWipeAll,
    .randomizedModel: checkRandomizedModel,
    .reopen: checkReopen,
]
