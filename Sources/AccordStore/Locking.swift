import Foundation

extension NSLock {
    /// Runs `body` holding the lock. Foundation's own `withLock` needs macOS 14 and
    /// iOS 17; the package still supports macOS 13 and iOS 16. `package`, so every
    /// target above the store locks the same way.
    package func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
