import Foundation
public import AccordCRDT

/// The single serial owner of a ``StorageAdapter``, shared by the document store and
/// the blob store that keep their data in it.
///
/// The adapter is handed over (`sending`) when this is created and is reached only
/// through ``withAdapter(_:)``, which holds a lock for the duration of the call. That
/// is the invariant behind `@unchecked Sendable`: no two threads ever touch the adapter
/// (or the SQLite connection inside it) at once.
public final class SerialStorage: @unchecked Sendable {
    private let adapter: any StorageAdapter
    private let lock = NSLock()

    public init(_ adapter: sending any StorageAdapter) {
        self.adapter = adapter
    }

    /// Opens a SQLite file as the storage (see ``SQLiteStorageAdapter``).
    public convenience init(path: String) throws(AccordError) {
        self.init(try SQLiteStorageAdapter(path: path))
    }

    /// A private in-memory storage (see ``MemoryStorageAdapter``).
    public static func inMemory() -> SerialStorage { SerialStorage(MemoryStorageAdapter()) }

    /// Runs `body` with exclusive use of the adapter. Errors that are not
    /// ``AccordError`` come out as `STORAGE_ERROR`. Do not call back into the same
    /// storage from `body`: the lock is not reentrant.
    public func withAdapter<T>(_ body: (any StorageAdapter) throws -> T) throws(AccordError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try storageCall { try body(adapter) }
    }
}

extension SerialStorage {
    /// The file of a plain SQLite storage (``SQLiteStorageAdapter``); nil for one in
    /// memory, a sealed one, or any other adapter. Layers that keep derived files
    /// beside the store (the records index) put them next to it, and keep them in
    /// memory when this is nil, so nothing of a sealed store is written in clear.
    public var filePath: String? {
        try? withAdapter { adapter in
            guard let sqlite = adapter as? SQLiteStorageAdapter, sqlite.connection.path != ":memory:" else { return nil }
            return sqlite.connection.path
        }
    }
}
