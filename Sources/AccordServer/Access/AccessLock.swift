import Foundation
import AccordCRDT
import AccordStore

/// The cache of ``AccessStore`` behind an `NSLock` (`Synchronization.Mutex` needs macOS 15).
final class AccessLock: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `cache` is only touched inside withLock.
    private let lock = NSLock()
    private var cache: [DocumentID: DocumentAccess] = [:]

    func withLock<T>(_ body: (inout [DocumentID: DocumentAccess]) throws(AccordError) -> T) throws(AccordError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&cache)
    }
}
