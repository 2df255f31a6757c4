public import AccordCRDT
public import AccordStore

/// Wraps a working ``StorageAdapter`` and makes one chosen call fail, so tests can
/// check that a store survives an I/O error or a full disk at every point of a workload.
///
/// Calls are counted from 1, either every protocol call or only writes (`commit` and
/// `wipeAll`). The failing call throws ``Fault/error`` without reaching the wrapped
/// adapter, so a failed `commit` applies nothing, exactly like a real adapter whose
/// transaction rolled back. Every other call passes through unchanged.
///
/// ```swift
/// for n in 1... {
///     let storage = FaultInjectingAdapter(wrapping: MemoryStorageAdapter(), failingCall: n, counting: .writesOnly)
///     ... run the workload, expect STORAGE_ERROR or success, reopen, check invariants ...
///     if storage.injectedFaults == 0 { break }  // the workload made fewer than n writes
/// }
/// ```
public final class FaultInjectingAdapter: StorageAdapter {
    /// What the failing call throws.
    public struct Fault: Sendable, Hashable {
        public var error: AccordError
        public init(_ error: AccordError) { self.error = error }

        /// A failed read or write (`STORAGE_ERROR`), as from a bad sector or a lost mount.
        public static let ioError = Fault(AccordError(.storageError, "injected I/O error", details: ["injected": "true"]))
        /// The disk is full (`STORAGE_FULL`).
        public static let diskFull = Fault(AccordError(.storageFull, "injected disk full", details: ["injected": "true"]))
    }

    /// Which calls count towards ``failingCall``.
    public enum Counting: Sendable, Hashable {
        /// Every call of the protocol, reads included.
        case everyCall
        /// Only `commit` and `wipeAll`; reads pass through uncounted.
        case writesOnly
    }

    public let inner: any StorageAdapter
    public let counting: Counting
    public var fault: Fault
    /// The counted call (from 1) that fails; nil passes every call through. Set it
    /// again between phases of a test, e.g. to `countedCalls + 1` to fail the next call.
    public var failingCall: Int?
    /// When true, every counted call from ``failingCall`` on fails, like a disk that
    /// stays full; when false only that one call fails.
    public var persistent: Bool
    /// Counted calls so far, the failed ones included.
    public private(set) var countedCalls = 0
    /// How many calls were failed so far.
    public private(set) var injectedFaults = 0

    public init(
        wrapping inner: any StorageAdapter, failingCall: Int?, counting: Counting = .everyCall,
        fault: Fault = .ioError, persistent: Bool = false
    ) {
        self.inner = inner
        self.failingCall = failingCall
        self.counting = counting
        self.fault = fault
        self.persistent = persistent
    }

    public func read(_ category: StorageCategory, key: String) throws -> [UInt8]? {
        try intercept("read", isWrite: false)
        return try inner.read(category, key: key)
    }

    public func keys(in category: StorageCategory) throws -> [String] {
        try intercept("keys", isWrite: false)
        return try inner.keys(in: category)
    }

    public func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        try intercept("readLog", isWrite: false)
        return try inner.readLog(category, key: key, after: after, limit: limit)
    }

    public func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64? {
        try intercept("lastSequence", isWrite: false)
        return try inner.lastSequence(category, key: key)
    }

    public func logKeys(in category: StorageCategory) throws -> [String] {
        try intercept("logKeys", isWrite: false)
        return try inner.logKeys(in: category)
    }

    public func commit(_ batch: [StorageOperation]) throws {
        // Throwing before forwarding is what makes a failed commit apply nothing.
        try intercept("commit", isWrite: true)
        try inner.commit(batch)
    }

    public func wipeAll() throws {
        try intercept("wipeAll", isWrite: true)
        try inner.wipeAll()
    }

    /// The wrapped adapter's, so blob stores keep their content where they would
    /// without the faults (the files themselves are not faulted).
    public var blobDirectory: BlobDirectory? { inner.blobDirectory }

    private func intercept(_ operation: String, isWrite: Bool) throws(AccordError) {
        guard isWrite || counting == .everyCall else { return }
        countedCalls += 1
        guard let failingCall,
              countedCalls == failingCall || (persistent && countedCalls > failingCall) else { return }
        injectedFaults += 1
        var error = fault.error
        error.details["operation"] = operation
        error.details["call"] = String(countedCalls)
        throw error
    }
}
