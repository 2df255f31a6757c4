import Foundation

/// A value behind an `NSLock` (`Synchronization.Mutex` needs macOS 15). Decide inside
/// `withLock`, act outside it; never hold it across `await`.
final class Locked<Value>: @unchecked Sendable {
    // Invariant: `value` is only read or written inside `lock.lock()`/`unlock()`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
