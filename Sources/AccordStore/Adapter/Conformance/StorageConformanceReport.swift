public import AccordCRDT

/// The name of one check of ``runStorageConformance(_:)``.
///
/// The raw string is stable (apps may log it or match on it), which is why this is a
/// struct of constants rather than a public enum: adding a check later must not break
/// anyone's `switch`.
public struct StorageConformanceCheck: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// A second `put` to a key replaces the first, for many keys and within one batch.
    public static let recordOverwrites = Self(rawValue: "record-overwrites")
    /// The same key in two categories names two records (and two logs); `keys(in:)`
    /// and `logKeys(in:)` list only their own category.
    public static let categoriesSeparate = Self(rawValue: "categories-separate")
    /// Empty values and values holding every byte 0...255 come back unchanged.
    public static let valuesExact = Self(rawValue: "values-exact")
    /// Keys with Unicode, NUL, slashes, quotes or differing only in normalization or
    /// case are distinct and come back byte for byte.
    public static let keysExact = Self(rawValue: "keys-exact")
    /// `keys(in:)` and `logKeys(in:)` list keys in ascending UTF-8 byte order.
    public static let keyOrder = Self(rawValue: "key-order")
    /// Reading, deleting or truncating what does not exist is not an error.
    public static let missingNames = Self(rawValue: "missing-names")
    /// A 4 MiB record and log entry round-trip.
    public static let largeValues = Self(rawValue: "large-values")
    /// Logs read back in ascending sequence across batches and interleaved logs,
    /// honouring `after:` and `limit:`; `lastSequence` is the highest sequence.
    public static let logOrder = Self(rawValue: "log-order")
    /// An append whose sequence is not after the log's last is rejected.
    public static let logSequenceEnforced = Self(rawValue: "log-sequence-enforced")
    /// `truncateLog` removes entries up to and including `through`; `deleteLog`
    /// removes the whole log; emptied logs leave `logKeys(in:)`.
    public static let logTruncation = Self(rawValue: "log-truncation")
    /// A batch with an invalid operation throws and leaves nothing of itself applied.
    public static let atomicBatches = Self(rawValue: "atomic-batches")
    /// A batch's operations apply in order (put then delete leaves nothing, ...).
    public static let batchOrder = Self(rawValue: "batch-order")
    /// `wipeAll` removes every record and every log of every category.
    public static let wipeAll = Self(rawValue: "wipe-all")
    /// Random batches agree with a reference model after every commit.
    public static let randomizedModel = Self(rawValue: "randomized-model")
    /// Committed data, and a wipe, survive closing and reopening the storage.
    /// Skipped when the subject cannot reopen.
    public static let reopen = Self(rawValue: "reopen")

    /// Every check, in the order the suite runs them.
    public static let all: [StorageConformanceCheck] = [
        .recordOverwrites, .categoriesSeparate, .valuesExact, .keysExact, .keyOrder, .missingNames,
        .largeValues, .logOrder, .logSequenceEnforced, .logTruncation, .atomicBatches, .batchOrder,
        .wipeAll, .randomizedModel, .reopen,
    ]
}

/// What ``runStorageConformance(_:)`` found: one result per check.
public struct StorageConformanceReport: Sendable, CustomStringConvertible {
    /// How one check ended. The set is closed: a check passes, fails, or does not apply.
    public enum Outcome: Sendable, Hashable {
        case passed
        case failed
        /// The check does not apply to the subject (``StorageConformanceCheck/reopen``
        /// for storage that cannot be reopened).
        case skipped
    }

    public struct Result: Sendable, Hashable {
        public var check: StorageConformanceCheck
        public var outcome: Outcome
        /// Why it failed or was skipped; empty when it passed.
        public var message: String

        public init(check: StorageConformanceCheck, outcome: Outcome, message: String) {
            self.check = check
            self.outcome = outcome
            self.message = message
        }
    }

    public var results: [Result]

    public init(results: [Result]) {
        self.results = results
    }

    /// True when no check failed (skipped checks do not count against the adapter).
    public var passed: Bool { failures.isEmpty }

    public var failures: [Result] { results.filter { $0.outcome == .failed } }

    public var failedChecks: [StorageConformanceCheck] { failures.map(\.check) }

    /// The result of `check`, or nil when the suite did not run it.
    public func result(of check: StorageConformanceCheck) -> Result? {
        results.first { $0.check == check }
    }

    /// Throws `STORAGE_NONCONFORMING` naming every failed check, so an app can make
    /// its own test (or a debug launch) fail with one line.
    public func requirePassing() throws(AccordError) {
        guard !passed else { return }
        let lines = failures.map { "\($0.check): \($0.message)" }
        throw AccordError(
            .storageNonconforming,
            "storage adapter failed \(failures.count) conformance check(s): " + lines.joined(separator: "; "),
            details: ["failed_checks": failedChecks.map(\.rawValue).joined(separator: ",")])
    }

    /// One line per check: `PASS name`, `FAIL name: message`, `SKIP name: message`.
    public var description: String {
        results.map { result in
            switch result.outcome {
            case .passed: "PASS \(result.check)"
            case .failed: "FAIL \(result.check): \(result.message)"
            case .skipped: "SKIP \(result.check): \(result.message)"
            }
        }.joined(separator: "\n")
    }
}
