import AccordCRDT

/// A ``StorageAdapter`` that seals every stored value before it reaches the adapter it
/// wraps, so that adapter (and the disk, a backup or a sync folder behind it) only ever
/// sees sealed bytes.
///
/// Each record value and log entry value is sealed with XChaCha20-Poly1305 under the
/// app's ``SealingKey``, with a fresh random nonce, and bound to its place (category,
/// key, and the sequence of a log entry). Reading a value that was sealed with another
/// key, changed, truncated, or moved to another place throws `STORAGE_CORRUPT` naming
/// the place; it never returns wrong bytes. Everything else passes through unchanged.
/// Blob content files in the inner adapter's ``blobDirectory`` are sealed too, by the
/// ``BlobStore`` with a subkey (see ``blobDirectory``).
///
/// ```swift
/// let key = try SealingKey(contentsOfFile: "/var/lib/app/accord.key")
/// let storage = SerialStorage(SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: dbPath), key: key))
/// ```
///
/// A wrong key is refused at the first call: the first commit also writes a sealed
/// marker record (category `accord.sealing`, reserved), and every later session opens it
/// before anything else, so data is never sealed with two keys.
///
/// Documented limits, what sealing does *not* hide:
/// - **Names stay in clear.** Categories and keys (for example document ids) and log
///   sequence numbers are what the wrapped adapter looks records up by, so it must see
///   them. Don't put secrets in keys.
/// - **Sizes and counts.** A sealed value is its plaintext's length plus 41 bytes, and
///   the number of records and log entries is visible.
/// - **Whole-value rollback.** Someone with write access to the storage but no key can
///   put back an older sealed value *at the same place* (or delete values); sealing
///   proves where a value belongs and that it is intact, not that it is the newest.
///
/// Stored format (version 1) of every sealed value, 41 bytes longer than its plaintext:
/// ```
/// version (1 byte, = 1) | nonce (24 random bytes) | ciphertext (plaintext length) | tag (16 bytes)
/// ```
/// The tag also covers where the value belongs, encoded as
/// `version | kind (1 record, 2 log entry) | category length (u64 LE) | category UTF-8 |
/// key length (u64 LE) | key UTF-8 | sequence (u64 LE, log entries only)`. The version
/// byte comes first so the format can change later without guessing.
public final class SealedStorageAdapter: StorageAdapter {
    private let inner: any StorageAdapter
    private let key: SealingKey
    /// The key content files are sealed with (see ``blobDirectory``).
    private let blobFileKey: SecretBytes?

    /// A sealed marker record that tells a wrong key at the first call, before anything
    /// is written: without it, a store opened with the wrong key would accept new
    /// records and end up sealed with two keys. The category is reserved.
    static let keyCheckCategory = StorageCategory("accord.sealing")
    static let keyCheckKey = "key-check"
    static let keyCheckPlaintext = Array("accord sealing key check, format 1".utf8)

    private enum KeyCheck { case unknown, verified, missing }
    private var keyCheck = KeyCheck.unknown

    /// Wraps `inner`; every value written through this adapter is sealed with `key`, and
    /// every value read is opened with it.
    public init(wrapping inner: any StorageAdapter, key: SealingKey) {
        self.inner = inner
        self.key = key
        // A key exists only once libsodium started, and deriving cannot fail otherwise.
        blobFileKey = try? BlobFileSealing.deriveKey(from: key)
    }

    /// The record's plaintext, or nil when there is none.
    /// - Throws: `STORAGE_CORRUPT` when the stored value does not open with this key at
    ///   this place; errors of the wrapped adapter as they are.
    public func read(_ category: StorageCategory, key: String) throws -> [UInt8]? {
        try verifyKey()
        guard let sealed = try inner.read(category, key: key) else { return nil }
        return try SealedValue.open(sealed, at: .record(category, key: key), with: self.key)
    }

    public func keys(in category: StorageCategory) throws -> [String] {
        try verifyKey()
        return try inner.keys(in: category)
    }

    /// The log's entries with their plaintexts; each entry opens only at its own sequence.
    /// - Throws: `STORAGE_CORRUPT` for the first entry that does not open; errors of the
    ///   wrapped adapter as they are.
    public func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        try verifyKey()
        return try inner.readLog(category, key: key, after: after, limit: limit).map { (entry) throws(AccordError) in
            let location = SealedLocation.logEntry(category, key: key, sequence: entry.sequence)
            return StorageLogEntry(sequence: entry.sequence, value: try SealedValue.open(entry.value, at: location, with: self.key))
        }
    }

    public func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64? {
        try verifyKey()
        return try inner.lastSequence(category, key: key)
    }

    public func logKeys(in category: StorageCategory) throws -> [String] {
        try verifyKey()
        return try inner.logKeys(in: category)
    }

    /// Seals the values of `put` and `append` operations and hands the batch on; the
    /// wrapped adapter keeps the batch atomic. Nothing is written when sealing fails.
    /// - Throws: `INVALID_ARGUMENT` for a value too large to seal; errors of the wrapped
    ///   adapter as they are.
    public func commit(_ batch: [StorageOperation]) throws {
        try verifyKey()
        var sealed = try batch.map { (operation) throws(AccordError) in try seal(operation) }
        let writesMarker = keyCheck == .missing && !sealed.isEmpty
        if writesMarker {
            // In the same atomic batch as the first data, so there is never data without it.
            sealed.insert(try seal(.put(Self.keyCheckCategory, key: Self.keyCheckKey, value: Self.keyCheckPlaintext)), at: 0)
        }
        try inner.commit(sealed)
        if writesMarker { keyCheck = .verified }
    }

    public func wipeAll() throws {
        try inner.wipeAll()
        keyCheck = .missing
    }

    /// The inner adapter's blob directory, with content files sealed under a subkey of
    /// this adapter's key (``BlobFileSealing``), so blob content is sealed like
    /// everything else. None when the inner directory is sealed already (a sealed adapter
    /// wrapping another): content then stays in chunks, sealed by both.
    public var blobDirectory: BlobDirectory? {
        // Never hand out the directory without the key: content would go in clear.
        guard let inner = inner.blobDirectory, !inner.isSealed, let blobFileKey else { return nil }
        return BlobDirectory(path: inner.path, sealingKey: blobFileKey)
    }

    /// Opens the marker record once: `STORAGE_CORRUPT` when it was sealed with another key.
    private func verifyKey() throws {
        guard keyCheck == .unknown else { return }
        guard let sealed = try inner.read(Self.keyCheckCategory, key: Self.keyCheckKey) else {
            keyCheck = .missing
            return
        }
        let opened: [UInt8]
        do {
            opened = try SealedValue.open(sealed, at: .record(Self.keyCheckCategory, key: Self.keyCheckKey), with: key)
        } catch {
            throw AccordError(
                .storageCorrupt, "the storage is sealed with another key (or its key-check record is damaged)",
                details: ["category": Self.keyCheckCategory.rawValue])
        }
        guard opened == Self.keyCheckPlaintext else {
            throw AccordError(.storageCorrupt, "the storage's key-check record is damaged")
        }
        keyCheck = .verified
    }

    private func seal(_ operation: StorageOperation) throws(AccordError) -> StorageOperation {
        switch operation {
        case .put(let category, let key, let value):
            .put(category, key: key, value: try SealedValue.seal(value, at: .record(category, key: key), with: self.key))
        case .append(let category, let key, let sequence, let value):
            .append(
                category, key: key, sequence: sequence,
                value: try SealedValue.seal(value, at: .logEntry(category, key: key, sequence: sequence), with: self.key))
        case .delete, .truncateLog, .deleteLog:
            operation
        }
    }
}
