import Dispatch
import Foundation
import AccordCRDT
import AccordStore

/// One document's room lent out to REST work (see ``SyncHub/withRoom(_:_:)``).
struct RoomLease {
    /// Hub work for the room that arrived during the lease (sync frames, joins, leaves,
    /// durability notices, access rechecks, cluster catch-ups), run in arrival order when
    /// it ends.
    var held: [() -> Void] = []
    /// REST work waiting for the room; woken when the lease ends, to try again.
    var waiting: [DispatchSemaphore] = []
}

/// Room leases: how long REST work on a document (a records query, a bulk write, an
/// ingest's transaction, an export) runs without holding the hub's queue.
///
/// On the queue the room is loaded and marked leased; the caller's body then runs on the
/// caller's own thread (a REST worker, never the network thread) with sole use of the
/// room and its `Doc`. Meanwhile the queue keeps serving every other document, and whatever
/// arrives for the leased one is held in order (``whenFree(_:_:)``). What the body
/// commits is stored and sent on the queue (``commit(_:in:)``); when the body returns,
/// the held work runs in order and the next waiting body may take the room. A leased
/// room is never unloaded. Handing the room over through the queue (`queue.sync` at
/// both ends) orders every touch of the room and its `Doc`: the queue's before the
/// lease, the body's, then the queue's again.
extension SyncHub {
    /// Runs `body` with the room of `document`, loading it if needed (a room nobody
    /// joined is unloaded after the idle time like any other), on the calling thread and
    /// with sole use of the room while it runs. For the records and admin routes, whose
    /// reads and writes go through the document the sync clients share. Waits while
    /// another body has the room. Call it off the queue, never on the network thread.
    /// - Throws: `DOCUMENT_UNAVAILABLE` when the server is stopping or the document
    ///   cannot be loaded now (the stored document is untouched), or what `body` throws.
    func withRoom<T>(_ document: DocumentID, _ body: (Room) throws(AccordError) -> T) throws(AccordError) -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        let room = try lease(document)
        defer { endLease(document) }
        leaseStarted?(document)
        return try body(room)
    }

    /// Runs `work` now, or, while `document`'s room is leased, once the lease ends (in
    /// the order such work arrived). On the queue.
    func whenFree(_ document: DocumentID, _ work: @escaping () -> Void) {
        if leases[document] != nil {
            leases[document]?.held.append(work)
        } else {
            work()
        }
    }

    func isLeased(_ document: DocumentID) -> Bool { leases[document] != nil }

    /// Takes the room of `document`, waiting (on the calling thread) while another body has it.
    private func lease(_ document: DocumentID) throws(AccordError) -> Room {
        enum Step {
            case leased(Room)
            case wait(DispatchSemaphore)
            case failed(AccordError)
        }
        while true {
            let step: Step = queue.sync {
                guard !isStopped else { return .failed(Self.unavailable(document, cause: "the server is stopping")) }
                if leases[document] != nil {
                    let semaphore = DispatchSemaphore(value: 0)
                    leases[document]?.waiting.append(semaphore)
                    return .wait(semaphore)
                }
                let room: Room
                do throws(AccordError) {
                    room = try loadRoom(document)
                } catch {
                    return .failed(Self.unavailable(document, cause: error.code.rawValue))
                }
                if room.connections.isEmpty, rooms[document]?.idleSince == nil {
                    rooms[document]?.idleSince = options.now()
                }
                leases[document] = RoomLease()
                return .leased(room)
            }
            switch step {
            case .leased(let room): return room
            case .failed(let error): throw error
            case .wait(let semaphore): semaphore.wait()
            }
        }
    }

    /// Gives the room back: the held work runs in order, then every waiting body tries again.
    func endLease(_ document: DocumentID) {
        queue.sync {
            guard let lease = leases.removeValue(forKey: document) else { return }  // the server stopped
            for work in lease.held {
                // Work held behind a lease may itself meet one: a body that got in since
                // cannot, since waiting bodies are woken only after this loop.
                work()
            }
            if let loaded = rooms[document], loaded.room.connections.isEmpty, loaded.idleSince == nil {
                rooms[document]?.idleSince = options.now()
            }
            lease.waiting.forEach { $0.signal() }
        }
    }

    /// Wakes every waiting body (they find the server stopped) and drops held work:
    /// its connections are closed. On the queue, from ``stop()``.
    func endLeasesForStop() {
        for lease in leases.values { lease.waiting.forEach { $0.signal() } }
        leases = [:]
    }

    /// Stores a ``Room/serverEdit(_:)`` durably (appended and flushed), then sends it to
    /// the room's members: a REST write is durable before anyone hears of it, and before
    /// the response. Call it inside ``withRoom(_:_:)``'s body (off the queue).
    ///
    /// The store's work (an ingest's update may be hundreds of megabytes) runs on the
    /// caller's thread: while the room is leased nothing else appends to its document,
    /// and the store takes appends from any thread. Only the room's bookkeeping and the
    /// sends run on the queue.
    /// - Throws: `DOCUMENT_UNAVAILABLE` when the server is stopping (nothing stored) or
    ///   the store failed (the members still get the edit; the next flush retries it).
    func commit(_ edit: (update: [UInt8], actions: [RoomAction]), in room: Room) throws(AccordError) {
        // The gate, not `isStopped`: a stop between a check and the append would flush
        // without this write, which the caller would then be told is stored.
        guard leaseWrites.enter() else { throw Self.unavailable(room.id, cause: "the server is stopping") }
        let stored: Result<UInt64, AccordError>
        do throws(AccordError) {
            let sequence = try documents.append(edit.update, to: room.id, isLocal: false)
            try documents.flush()
            stored = .success(sequence)
        } catch {
            stored = .failure(error)
        }
        leaseWrites.leave()
        queue.sync {
            if case .success(let sequence) = stored {
                room.persisted(storeSequence: sequence, ack: nil, now: options.now())
                updateAppended?(room.id, edit.update.count, options.now())
            }
            // On a failure the room's copy already holds the edit: members still get it,
            // so they agree with the server, and the next flush retries the buffered update.
            guard !isStopped else { return }
            perform(edit.actions, in: room)
        }
        if case .failure(let error) = stored { throw Self.unavailable(room.id, cause: error.code.rawValue) }
    }

    static func unavailable(_ document: DocumentID, cause: String) -> AccordError {
        AccordError(
            .documentUnavailable, "The document is momentarily unreachable; retry the write",
            details: ["document": document.rawValue, "cause": cause])
    }
}

/// Counts writes in flight and, once closed, refuses new ones: ``SyncHub/stop()`` closes
/// it and waits, so every write either finished before the stop's flush or never began.
final class WriteGate: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `active` and `closed` change under `condition`.
    private let condition = NSCondition()
    private var active = 0
    private var closed = false

    /// False once closed: the write must not begin.
    func enter() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        active += 1
        return true
    }

    func leave() {
        condition.lock()
        active -= 1
        if active == 0 { condition.broadcast() }
        condition.unlock()
    }

    func closeAndWait() {
        condition.lock()
        closed = true
        while active > 0 { condition.wait() }
        condition.unlock()
    }
}
