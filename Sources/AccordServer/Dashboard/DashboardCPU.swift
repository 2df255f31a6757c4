import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU time the dashboard itself costs the server, counted directly: every piece
/// of dashboard work (the sampler, the admin routes and page files, ticket checks, the
/// live socket's serialization and sends, the hub hooks it installed) runs inside
/// ``measure(_:_:)``, which adds the calling thread's CPU time over the call to a
/// per-part total. Work the calling thread hands elsewhere (the network thread writing
/// the queued bytes of a response or a live message, parsing the request) is not in it.
///
/// Thread CPU time, not wall time: waiting for a lock or a queue costs nothing here,
/// so the total is what the dashboard took from the machine, comparable with the
/// process's CPU time in `/proc/<pid>/stat`. `/metrics` shows it as
/// `accord_dashboard_cpu_seconds_total{part=...}`.
final class DashboardCPU: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `nanoseconds` is only touched under `lock`.

    /// Where the time went. `sampler` and `hooks` run whether or not a page is open;
    /// `routes` and `live` only when one is.
    enum Part: String, CaseIterable, Sendable {
        /// The timer: a sample a second, the change check four times a second.
        case sampler
        /// The admin JSON routes (`/v1/admin/dashboard/...`) and the page's files.
        case routes
        /// The live socket: ticket checks, serializing and queueing samples and notices.
        case live
        /// The hub's `updateAppended` and `userDisconnected` hooks.
        case hooks
    }

    /// False where the platform has no per-thread CPU clock: the totals stay 0.
    static let isSupported: Bool = threadNanoseconds() != nil

    /// What a window with nothing in it measures: part of the clock reads themselves,
    /// taken off every measured window so a tiny call is not counted as the clock's
    /// cost. The least of many empty windows (never more than the true cost, so it
    /// never takes off real work).
    static let clockOverhead: UInt64 = leastEmptyWindow(threadNanoseconds)
    /// The same for ``measureBrief(_:_:)``'s clock.
    static let briefClockOverhead: UInt64 = leastEmptyWindow(monotonicNanoseconds)

    private static func leastEmptyWindow(_ clock: () -> UInt64?) -> UInt64 {
        var least = UInt64.max
        for _ in 0..<200 {
            guard let start = clock(), let end = clock() else { return 0 }
            least = min(least, end >= start ? end - start : 0)
        }
        return least == .max ? 0 : least
    }

    private let lock = NSLock()
    private var nanoseconds: [Part: UInt64] = [:]

    /// Runs `body`, adding the CPU time this thread spent in it to `part`.
    func measure<T, E: Error>(_ part: Part, _ body: () throws(E) -> T) throws(E) -> T {
        guard let start = Self.threadNanoseconds() else { return try body() }
        defer { add(part, from: start, clock: Self.threadNanoseconds, overhead: Self.clockOverhead) }
        return try body()
    }

    /// For work called once per update (the hub's hooks), too short for the per-thread
    /// clock: that is a system call of about a microsecond, more than such a call costs,
    /// and the scatter of its own cost (not the work) was most of what it measured. So
    /// these calls are timed on the monotonic clock (read without a system call, tens of
    /// nanoseconds), every call. For a call that never waits (a lock held for a few
    /// instructions, a set insert) its elapsed time is its CPU time; a preemption inside
    /// one would be counted, which at a few hundred nanoseconds a call is rare.
    func measureBrief<T>(_ part: Part, _ body: () -> T) -> T {
        guard Self.isSupported, let start = Self.monotonicNanoseconds() else { return body() }
        defer { add(part, from: start, clock: Self.monotonicNanoseconds, overhead: Self.briefClockOverhead) }
        return body()
    }

    /// Adds the window from `start` to `clock`'s reading now, less the clock's own cost.
    private func add(_ part: Part, from start: UInt64, clock: () -> UInt64?, overhead: UInt64) {
        guard let end = clock(), end >= start else { return }
        let spent = end - start
        let work = spent > overhead ? spent - overhead : 0
        lock.withLock { nanoseconds[part, default: 0] &+= work }
    }

    /// Seconds spent so far, per part (every part listed, 0 included).
    var seconds: [Part: Double] {
        let copy = lock.withLock { nanoseconds }
        var out: [Part: Double] = [:]
        for part in Part.allCases { out[part] = Double(copy[part] ?? 0) / 1_000_000_000 }
        return out
    }

    /// The monotonic clock in nanoseconds (`CLOCK_MONOTONIC`, a vDSO read on Linux).
    static func monotonicNanoseconds() -> UInt64? {
        var now = timespec()
        guard clock_gettime(CLOCK_MONOTONIC, &now) == 0 else { return nil }
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// The calling thread's CPU time in nanoseconds, or nil where there is no such clock.
    static func threadNanoseconds() -> UInt64? {
        #if os(Linux)
        var now = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0 else { return nil }
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
        #elseif canImport(Darwin)
        // Darwin's per-thread clock (macOS 10.12, iOS 10 and later).
        let value = clock_gettime_nsec_np(CLOCK_THREAD_CPUTIME_ID)
        return value == 0 ? nil : value
        #else
        return nil
        #endif
    }
}
