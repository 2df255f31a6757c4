import Dispatch

/// The serial executor an ``AccordClient`` runs on: a Dispatch queue of its own.
///
/// The client's work includes synchronous store calls (reading unacknowledged updates,
/// committing acknowledgements with an fsync) and CRDT decoding. On the default actor
/// executor those would block a thread of Swift's cooperative pool; on this queue they
/// block only the client's own thread. Dispatch queues are serial here, so jobs run one
/// at a time, in order, as an actor requires.
final class ClientExecutor: SerialExecutor {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
