import Dispatch

/// Runs a benchmark's async cases from the synchronous `main`: raises the open-file
/// limit (clients and servers hold many sockets), warns about debug builds, and blocks
/// the main thread until the cases are done. The cases run on the concurrency pool.
enum AsyncCases {
    static func run(_ cases: @escaping @Sendable () async -> Int32) -> Int32 {
        #if DEBUG
        TraceBenchmark.log("warning: debug build; measure with 'swift build -c release --product accord-bench'")
        #endif
        let limit = FileLimit.raiseToHard()
        TraceBenchmark.log("open-file limit \(limit)")
        let box = StatusBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.status = await cases()
            done.signal()
        }
        done.wait()
        return box.status
    }
}

/// The exit status, handed from the task that runs the cases to the waiting main thread
/// (the semaphore orders the write before the read).
private final class StatusBox: @unchecked Sendable {
    var status: Int32 = 1
}
