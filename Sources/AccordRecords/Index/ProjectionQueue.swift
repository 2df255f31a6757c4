import AccordStore
import Dispatch
import Foundation

/// The changed records of one transaction, read out of its document on the document
/// owner's executor and waiting to be written into the index's tables.
struct PendingProjection: Sendable {
    /// One record to write (`record` nil: remove its row).
    struct Row: Sendable {
        let schema: ModelSchema
        let id: String
        let record: RecordData?
    }

    let document: DocumentID
    let rows: [Row]
    /// Records the document holds in a shape that breaks their schema (projected as removed).
    let malformed: Int
    let stateVector: [UInt8]
    let sequence: UInt64
}

/// Projections waiting for the index's connection, in the order their transactions
/// ended. The document's owner only reads the changed records out of the `Doc` and
/// appends them here, which is cheap; the SQLite writes happen on a background thread
/// or, when a reader comes first, on the reader's thread just before it reads. So a
/// batch of saves and the index writes of the batch before it run side by side on two
/// cores, and a read still sees every save that returned before it.
///
/// Has its own lock, held only to append or take: the owner never waits for the index
/// connection, which a long write may hold.
final class ProjectionQueue: @unchecked Sendable {
    // Invariant: `pending` and `scheduled` are touched only under `lock`.
    private let lock = NSLock()
    private var pending: [PendingProjection] = []
    private var scheduled = false

    /// Appends `projection`; returns true when no background drain is scheduled yet
    /// (the caller schedules one).
    func append(_ projection: PendingProjection) -> Bool {
        lock.locked {
            pending.append(projection)
            defer { scheduled = true }
            return !scheduled
        }
    }

    /// Every waiting projection, oldest first; the queue is left empty.
    func takeAll() -> [PendingProjection] {
        lock.locked {
            defer { pending = [] }
            return pending
        }
    }

    /// Called by the background drain when it starts: appends after this schedule a new one.
    func drainStarted() { lock.locked { scheduled = false } }
}
