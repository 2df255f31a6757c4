public import AccordCRDT

extension ErrorCode {
    /// A storage operation failed; `details["sqlite_code"]` carries SQLite's extended
    /// result code when SQLite reported it.
    public static let storageError = ErrorCode(rawValue: "STORAGE_ERROR")
    /// The disk (or the database's size limit) is full. Nothing of the failed write is kept.
    public static let storageFull = ErrorCode(rawValue: "STORAGE_FULL")
    /// The database or file is read-only for this process.
    public static let storageReadOnly = ErrorCode(rawValue: "STORAGE_READ_ONLY")
    /// Stored bytes are damaged, missing, sealed with another key, or tampered with.
    /// `details["document"]` names the document when one is concerned.
    public static let storageCorrupt = ErrorCode(rawValue: "STORAGE_CORRUPT")
    /// The document is not in the store.
    public static let documentNotFound = ErrorCode(rawValue: "DOCUMENT_NOT_FOUND")
    /// The document's content was evicted from this device (its metadata remains).
    public static let documentEvicted = ErrorCode(rawValue: "DOCUMENT_EVICTED")
    /// A document with that id is already in the store.
    public static let documentExists = ErrorCode(rawValue: "DOCUMENT_EXISTS")
    /// Evicting would drop local edits the server has not acknowledged yet.
    public static let unacknowledgedWrites = ErrorCode(rawValue: "UNACKNOWLEDGED_WRITES")
    /// The blob is not in the store.
    public static let blobNotFound = ErrorCode(rawValue: "BLOB_NOT_FOUND")
    /// Content did not hash to the SHA-256 it was announced under (a download with
    /// wrong bytes, an upload whose bytes do not match its name). Nothing was kept.
    public static let blobHashMismatch = ErrorCode(rawValue: "BLOB_HASH_MISMATCH")
    /// The store was closed; no further calls are accepted.
    public static let storeClosed = ErrorCode(rawValue: "STORE_CLOSED")
    /// A storage adapter broke a promise of ``StorageAdapter`` (see
    /// ``runStorageConformance(_:)``); `details["failed_checks"]` lists the checks.
    public static let storageNonconforming = ErrorCode(rawValue: "STORAGE_NONCONFORMING")

    /// Every code defined by AccordStore, for golden tests and documentation.
    public static let allStoreCodes: [ErrorCode] = [
        .storageError, .storageFull, .storageReadOnly, .storageCorrupt, .documentNotFound,
        .documentEvicted, .documentExists, .unacknowledgedWrites, .blobNotFound, .storeClosed,
        .storageNonconforming, .blobHashMismatch,
    ]
}
