import AccordCRDT

/// A named group of records or logs, such as document snapshots or blob chunks.
///
/// Categories are separate namespaces: the same key in two categories names two
/// different records, and an adapter must never mix them up.
public struct StorageCategory: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // Byte for byte, as adapters compare names: Swift's String equality would make
    // canonically equivalent names ("\u{E9}" and "e\u{301}") one category.
    public static func == (a: StorageCategory, b: StorageCategory) -> Bool { ExactName.equal(a.rawValue, b.rawValue) }

    public func hash(into hasher: inout Hasher) { ExactName.hash(rawValue, into: &hasher) }
    public static func < (a: StorageCategory, b: StorageCategory) -> Bool {
        a.rawValue.utf8.lexicographicallyPrecedes(b.rawValue.utf8)
    }
}

/// One entry of an ordered log: its sequence number (chosen by the writer, strictly
/// increasing within one log) and its opaque bytes.
public struct StorageLogEntry: Sendable, Hashable {
    public var sequence: UInt64
    public var value: [UInt8]
    public init(sequence: UInt64, value: [UInt8]) {
        self.sequence = sequence
        self.value = value
    }

    /// The sequence numbers a log accepts: 1 through 2^63 - 1.
    public static let validSequences: ClosedRange<UInt64> = 1...UInt64(Int64.max)
}

/// One change in an atomic batch handed to ``StorageAdapter/commit(_:)``.
public enum StorageOperation: Sendable, Hashable {
    /// Writes a record, replacing any record under the same category and key.
    case put(StorageCategory, key: String, value: [UInt8])
    /// Removes a record; removing a record that does not exist is not an error.
    case delete(StorageCategory, key: String)
    /// Adds an entry to the end of a log. `sequence` must be in ``StorageLogEntry/validSequences``
    /// (so `readLog(after: 0)` reads every entry and SQLite's signed integers hold it) and
    /// greater than every sequence already in that log; an adapter rejects it (and the
    /// whole batch) otherwise.
    case append(StorageCategory, key: String, sequence: UInt64, value: [UInt8])
    /// Removes the entries of a log whose sequence is at most `through`.
    case truncateLog(StorageCategory, key: String, through: UInt64)
    /// Removes a whole log.
    case deleteLog(StorageCategory, key: String)
}

/// The seam between Accord's stores and the bytes on a device.
///
/// An adapter stores opaque bytes: records (category + key → value) and ordered logs
/// (category + key → entries by sequence). Accord's document and blob stores are built
/// only on this protocol, so an app can keep its data anywhere by writing an adapter;
/// ``runStorageConformance(_:)`` checks that an adapter keeps the promises below.
///
/// Promises:
/// - **Durability**: when `commit` returns, the batch survives a crash or power loss.
/// - **Atomicity**: a batch is applied whole or not at all, also across a crash.
/// - **Isolation of names**: categories and keys are compared exactly (byte for byte).
/// - **Order**: a log reads back in ascending sequence, with nothing skipped.
///
/// Threading: an adapter has one serial owner (the store that holds it) and is not
/// `Sendable`. Errors an adapter throws that are not ``AccordError`` reach callers as
/// `STORAGE_ERROR`.
public protocol StorageAdapter: AnyObject {
    /// The record under `key`, or nil when there is none.
    func read(_ category: StorageCategory, key: String) throws -> [UInt8]?
    /// The keys of every record in `category`, in ascending byte order.
    func keys(in category: StorageCategory) throws -> [String]
    /// Up to `limit` entries of a log with a sequence greater than `after`, ascending.
    /// A log that does not exist reads as empty.
    func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry]
    /// The highest sequence in a log, or nil when the log is empty or does not exist.
    func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64?
    /// The keys of every non-empty log in `category`, in ascending byte order.
    func logKeys(in category: StorageCategory) throws -> [String]
    /// Applies every operation of `batch` atomically and durably, in order.
    func commit(_ batch: [StorageOperation]) throws
    /// Removes every record and every log of every category (logout), and the blob
    /// files in ``blobDirectory`` when there is one.
    func wipeAll() throws
    /// Where a ``BlobStore`` on this adapter keeps blob content as files, or nil (the
    /// default) to keep it in the adapter as chunks. An adapter that returns a directory
    /// must remove its content in ``wipeAll()``; a wrapping adapter passes its inner
    /// adapter's on (``SealedStorageAdapter`` seals it).
    var blobDirectory: BlobDirectory? { get }
}

extension StorageAdapter {
    /// Every entry of a log with a sequence greater than `after`, ascending.
    public func readLog(_ category: StorageCategory, key: String, after: UInt64 = 0) throws -> [StorageLogEntry] {
        try readLog(category, key: key, after: after, limit: Int.max)
    }
}

/// Runs an adapter call and turns any foreign error into `STORAGE_ERROR`.
func storageCall<T>(_ body: () throws -> T) throws(AccordError) -> T {
    do {
        return try body()
    } catch let error as AccordError {
        throw error
    } catch {
        throw AccordError(.storageError, "storage adapter failed: \(error)")
    }
}
