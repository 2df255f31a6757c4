import AccordCRDT
import Dispatch
import Foundation

/// Commits the chunk batches of one put on a background queue, so hashing and reading
/// the next batch overlap writing this one (SHA-256 and the SQLite commit cost about
/// the same; measured in `accord-bench`'s BlobBenchmark). At most one batch is in
/// flight, so memory stays at two batches.
///
/// `@unchecked Sendable`: `failure` is touched only with `lock` held; `slot` admits one
/// batch at a time, and the queue runs them in submission order.
final class BlobBatchCommitter: @unchecked Sendable {
    private let storage: SerialStorage
    private let queue = DispatchQueue(label: "accord.blob.commit")
    private let slot = DispatchSemaphore(value: 1)
    private let lock = NSLock()
    private var failure: AccordError?

    init(storage: SerialStorage) { self.storage = storage }

    /// Waits for the previous batch, rethrows its failure if it had one, then starts
    /// committing `batch` in the background.
    func submit(_ batch: [StorageOperation]) throws(AccordError) {
        slot.wait()
        if let failure = currentFailure() {
            slot.signal()
            throw failure
        }
        queue.async { [self] in
            do throws(AccordError) {
                try storage.withAdapter { adapter in try adapter.commit(batch) }
            } catch {
                lock.lock()
                failure = error
                lock.unlock()
            }
            slot.signal()
        }
    }

    /// Waits until no batch is in flight; throws the failure of the last one, if any.
    func drain() throws(AccordError) {
        slot.wait()
        slot.signal()
        if let failure = currentFailure() { throw failure }
    }

    private func currentFailure() -> AccordError? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }
}
