import Foundation
import AccordStore

/// A wall clock that tests move by hand, for stores that take an injected `now`.
public final class ManualClock: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `date` is touched only with `lock` held.
    private let lock = NSLock()
    private var date: Date

    public init(_ date: Date) { self.date = date }

    public func advance(by seconds: TimeInterval) {
        lock.locked { date += seconds }
    }

    /// The current time, as the closure a store's `now` option takes.
    public var read: @Sendable () -> Date {
        { [self] in lock.locked { date } }
    }
}
