import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// Runs a store's automatic compactions one at a time, in order, on a thread of its own
/// that exists while there is work and yields the CPU to the threads that edit.
///
/// Why not a Dispatch queue: a fold replays and re-encodes the whole document, and while
/// appends go on the thresholds call for one fold after another, so the compaction
/// thread is busy all the time. At the same scheduling priority it takes half the CPU
/// from the editing thread on a two-core machine (measured with `accord-bench store`).
/// Its thread therefore runs at a lower priority (10 nice levels lower on Linux, utility
/// QoS elsewhere): compaction still runs whenever a core is free, and it only saves space and
/// load time (the updates it folds are already durable), so running later costs nothing
/// that was promised.
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
        thread.qualityOfService = .utility
        thread.start()
    }

    /// Returns when every job submitted so far (and any submitted meanwhile) has run.
    func waitUntilIdle() {
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
    }

    private func drain() {
        Self.lowerThreadPriority()
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

    private static func lowerThreadPriority() {
        #if os(Linux)
        // On Linux the nice value belongs to the thread (inherited from the one that
        // started it), and `who` 0 is the calling thread, so this leaves the rest of the
        // process alone. Raising it back would need privileges, which is why the thread
        // is ours and not a pool thread.
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        _ = setpriority(which, 0, min(getpriority(which, 0) + 10, 19))
        #endif
    }
}
