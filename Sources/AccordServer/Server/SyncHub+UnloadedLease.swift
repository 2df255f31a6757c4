import Dispatch
import AccordCRDT
import AccordStore

/// Leases of a document whose room is not loaded: REST work that writes or reads the
/// stored document without materializing it (an ingest of new records written as one
/// update, a records query answered by an index that is current with the store).
///
/// The lease is the one ``withRoom(_:_:)`` takes (same table, same waiting and held
/// work, `SyncHub+Lease.swift`), taken only while no room holds the document, and no
/// room is loaded while it lasts: sync joins and other hub work for the document are
/// held until it ends, then load the room from the store, which by then holds what the
/// body committed.
extension SyncHub {
    /// Runs `body` with sole use of `document` when no room holds it, on the calling
    /// thread; nil, without running it, when a room is loaded (the caller then works
    /// through the room). Waits while another body has the document. Off the queue.
    /// - Throws: `DOCUMENT_UNAVAILABLE` when the server is stopping, or what `body` throws.
    func withUnloadedDocument<T>(_ document: DocumentID, _ body: () throws(AccordError) -> T) throws(AccordError) -> T? {
        guard try leaseUnloaded(document) else { return nil }
        defer { endLease(document) }
        leaseStarted?(document)
        return try body()
    }

    private enum UnloadedLeaseStep {
        case leased
        case loaded
        case wait(DispatchSemaphore)
        case stopped
    }

    /// Takes the lease of `document` if no room holds it (true), waiting while another
    /// body has it; false when a room is loaded.
    private func leaseUnloaded(_ document: DocumentID) throws(AccordError) -> Bool {
        dispatchPrecondition(condition: .notOnQueue(queue))
        while true {
            let step: UnloadedLeaseStep = queue.sync {
                guard !isStopped else { return .stopped }
                if leases[document] != nil {
                    let semaphore = DispatchSemaphore(value: 0)
                    leases[document]?.waiting.append(semaphore)
                    return .wait(semaphore)
                }
                guard rooms[document] == nil else { return .loaded }
                leases[document] = RoomLease()
                return .leased
            }
            switch step {
            case .stopped: throw Self.unavailable(document, cause: "the server is stopping")
            case .loaded: return false
            case .leased: return true
            case .wait(let semaphore): semaphore.wait()
            }
        }
    }

    /// Stores `update` for `document`, whose room is not loaded, durably (appended and
    /// flushed), inside ``withUnloadedDocument(_:_:)``'s body; returns its sequence in
    /// the store. Nobody is connected to send it to: a room loaded later reads it from
    /// the store.
    /// - Throws: `DOCUMENT_UNAVAILABLE` when the server is stopping (nothing stored) or
    ///   the store failed (the update stays buffered; the next flush retries it).
    func commitUnloaded(_ update: [UInt8], to document: DocumentID) throws(AccordError) -> UInt64 {
        guard leaseWrites.enter() else { throw Self.unavailable(document, cause: "the server is stopping") }
        let stored: Result<UInt64, AccordError>
        do throws(AccordError) {
            let sequence = try documents.append(update, to: document, isLocal: false)
            try documents.flush()
            stored = .success(sequence)
        } catch {
            stored = .failure(error)
        }
        leaseWrites.leave()
        switch stored {
        case .success(let sequence):
            queue.sync { updateAppended?(document, update.count, options.now()) }
            return sequence
        case .failure(let error):
            throw Self.unavailable(document, cause: error.code.rawValue)
        }
    }
}
