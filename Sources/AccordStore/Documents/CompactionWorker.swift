import Foundation
import AccordCRDT
#if canImport(Glibc)
internal import Glibc
#endif

/// Runs a store's automatic compactions one at a time, in order, on a thread of its own
/// that exists while there is work, and runs the CPU-heavy middle of each fold below
/// the priority of the threads that edit.
///
/// Why: a fold replays and re-encodes the whole document, and while appends go on the
/// thresholds call for one fold after another, so compaction is busy all the time. At
/// the same scheduling priority it took about half the CPU from the editing thread on
/// a two-core machine (measured with `accord-bench store`). Compaction only saves space
/// and load time (what it folds is already durable), so that part runs 10 nice levels
/// lower (``atLowPriority(_:)``). The steps that hold the store's locks (reading the
/// content, the commit) stay at normal priority: flushes wait for those locks, and a
/// starved low-priority holder would keep them waiting (priority inversion).
final class CompactionWorker: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `jobs` and `running` are read and written
    // only while `condition` is locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var running = false

    /// Queues `job`; starts the thread if none is running.
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        jobs.append(job)
        guard !running else { return }
        running = true
        let thread = Thread { [self] in drain() }
        thread.name = "accord.store.compaction"
        thread.start()
    }

    /// Returns when every job submitted so far (and any submitted meanwhile) has run.
    func waitUntilIdle() {
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
    }

    private func drain() {
        while true {
            condition.lock()
            guard !jobs.isEmpty else {
                running = false
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Runs `body` on a new thread 10 nice levels below the caller (on Linux; elsewhere
    /// at utility QoS) and waits for it. A thread per call because a thread cannot raise
    /// its priority back without privileges, and a fold's worth of work dwarfs the cost.
    /// (`body` is escaping because the thread may still hold it for a moment after
    /// signalling.)
    static func atLowPriority<T: Sendable>(_ body: @escaping @Sendable () throws(AccordError) -> T) throws(AccordError) -> T {
        let outcome = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            lowerThreadPriority()
            outcome.result = Result { () throws(AccordError) -> T in try body() }
            done.signal()
        }
        thread.qualityOfService = .utility
        thread.start()
        done.wait()
        // Set before the signal that the wait returned on.
        guard let result = outcome.result else { preconditionFailure("atLowPriority: no result") }
        return try result.get()
    }

    /// The result handed from the low-priority thread to the waiting one; the
    /// semaphore orders the write before the read (the reason for @unchecked Sendable).
    private final class Outcome<T>: @unchecked Sendable {
        var result: Result<T, AccordError>?
    }

    private static func lowerThreadPriority() {
        #if os(Linux)
        // On Linux the nice value belongs to the thread (inherited from the one that
        // started it), and `who` 0 is the calling thread, so this leaves the rest of the
        // process alone.
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        _ = setpriority(which, 0, min(getpriority(which, 0) + 10, 19))
        #endif
    }
}
