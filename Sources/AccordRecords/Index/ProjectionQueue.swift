import AccordStore
import Foundation

/// The changed records of one transaction, read out of its document on the document
/// owner's executor and waiting to be written into the index's tables.
struct PendingProjection: Sendable {
    /// One record to write (`record` nil: remove its row). `created`: its transaction
    /// created it, so the index most likely holds no row for it yet (a hint, checked).
    struct Row: Sendable {
        let id: String
        let record: RecordData?
        var created = false
    }

    /// The rows of one model, with the schema they were read with. Grouped so the
    /// writer looks the model's tables up and checks its schema once per model, not
    /// once per row (per row, the look-up, the schema comparison and the copies were
    /// about a sixth of the writer's Swift time on a batch of new records).
    struct ModelRows: Sendable {
        let schema: ModelSchema
        var rows: [Row]
    }

    let document: DocumentID
    let models: [ModelRows]
    /// Records the document holds in a shape that breaks their schema (projected as removed).
    let malformed: Int
    let stateVector: [UInt8]
    let sequence: UInt64
}

/// Projections waiting for the index's connection, in the order their transactions
/// ended. The document's owner only reads the changed records out of the `Doc` and
/// appends them here, which is cheap; the SQLite writes happen on the queue's own
/// thread or, when a reader comes first, on the reader's thread just before it reads.
/// So a batch of saves and the index writes of the batch before it run side by side on
/// two cores, and a read still sees every save that returned before it.
///
/// Has its own lock, held only to append or take: the owner never waits for the index
/// connection, which a long write may hold. The writer thread starts when work arrives
/// and ends when none is left (a dedicated thread, not a shared pool's: the client's
/// own work runs on the pool, and the writer must not wait behind it).
final class ProjectionQueue: @unchecked Sendable {
    // Invariant: `pending` and `writerRunning` are touched only under `condition`.
    private let condition = NSCondition()
    private var pending: [PendingProjection] = []
    private var writerRunning = false

    /// Appends `projection` and makes sure a writer thread runs `write` until the queue
    /// is empty (`write` takes what is queued with ``takeAll()``).
    func append(_ projection: PendingProjection, write: @escaping @Sendable () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        pending.append(projection)
        guard !writerRunning else { return }
        writerRunning = true
        let thread = Thread { [self] in
            while true {
                condition.lock()
                guard !pending.isEmpty else {
                    writerRunning = false
                    condition.unlock()
                    return
                }
                condition.unlock()
                write()
            }
        }
        thread.name = "accord.records.index"
        thread.start()
    }

    /// Every waiting projection, oldest first; the queue is left empty.
    func takeAll() -> [PendingProjection] {
        condition.lock()
        defer { condition.unlock() }
        let taken = pending
        pending = []
        return taken
    }
}
