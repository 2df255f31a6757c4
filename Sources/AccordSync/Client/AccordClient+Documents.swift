import AccordCRDT
import AccordStore

extension AccordClient {
    /// The connection is ready: hand the document what the store holds unacknowledged.
    func ready(_ document: OpenDocument, hello: ServerHello) {
        // After the machine's first frames, which join the server's room.
        defer { presenceReady(document) }
        let unacknowledged: [OutboundUpdate]
        do throws(AccordError) {
            unacknowledged = try store.unacknowledgedUpdates(document.id)
                .map { OutboundUpdate(sequence: $0.sequence, bytes: $0.value) }
        } catch {
            bus.emit(.failure(document.id, error))
            return
        }
        document.delivered = max(document.delivered, unacknowledged.last?.sequence ?? 0)
        perform(document.machine.connectionReady(hello, unacknowledged: unacknowledged, now: now), for: document)
    }

    /// The store committed updates of a document: tell the app (``DocumentChangedEvent``)
    /// and hand the machine the local ones it has not seen
    /// (``DocumentStore/unacknowledgedUpdates(_:)`` holds exactly those that are
    /// durable, local and not acknowledged).
    func storeAppended(_ change: DocumentChange) {
        let id = change.id
        guard let document = documents[id], case .appended(let sequences) = change.kind else { return }
        notifyStored(id, through: sequences.upperBound)
        if change.localUpdates + change.remoteUpdates > 0 {
            let origin: DocumentChangedEvent.Origin =
                change.remoteUpdates == 0 ? .local : change.localUpdates == 0 ? .remote : .localAndRemote
            bus.emit(.documentChanged(DocumentChangedEvent(documentID: id, origin: origin, sequences: sequences)))
        }
        do throws(AccordError) {
            // Most commits of an open document are remote updates it applied: skip the read.
            guard try store.metadata(id).lastLocalSequence > document.delivered else { return }
            let updates = try store.unacknowledgedUpdates(id).filter { $0.sequence > document.delivered }
                .map { OutboundUpdate(sequence: $0.sequence, bytes: $0.value) }
            guard let last = updates.last else { return }
            document.delivered = last.sequence
            perform(document.machine.localUpdatesAppended(updates, now: now), for: document)
        } catch {
            bus.emit(.failure(id, error))
        }
    }

    /// Carries out a document machine's actions, in order. A failed action is reported
    /// and the rest still run (each is independent of the others' success).
    func perform(_ actions: [DocumentSyncAction], for document: OpenDocument) {
        let id = document.id
        let doc = document.stored.doc
        var applied = false
        var deleted = false
        for action in actions {
            do throws(AccordError) {
                switch action {
                case .send(let frame):
                    send(frame, for: id)
                case .sendStepOne:
                    send(.sync(.step1(stateVector: doc.encodeStateVector())), for: id)
                case .answerStepOne(let stateVector):
                    send(.sync(.step2(update: try doc.encodeStateAsUpdate(from: stateVector))), for: id)
                case .apply(let update):
                    // The StoredDocument logs it in the store as received, not for sending.
                    try doc.applyUpdate(update, origin: DocumentStore.remoteOrigin)
                    applied = true
                case .acknowledge(let through):
                    try store.acknowledge(id, through: through)
                case .emit(let event):
                    bus.emit(.document(id, event))
                    if case .synced = event {
                        blobDocumentSynced(id)
                        createConfirmed(id)
                    }
                    if case .serverError(let error) = event, error.code == Self.documentDeletedCode { deleted = true }
                    // The server refused the document (no access, not found): an open
                    // waiting for its state will not get it.
                    if case .serverError(let error) = event, JoinRefusal.refusesJoin(error) {
                        failLoads(document, with: error)
                    }
                case .scheduleTick(let at):
                    document.tickTimer?.cancel()
                    document.tickTimer = timer(at: at) { client in client.documentTick(id) }
                case .deliverAwareness(let bytes):
                    receivedAwareness(bytes, for: document)
                case .deliverBroadcast(let topic, let payload, let sender):
                    receivedBroadcast(topic: topic, payload: payload, sender: sender, for: document)
                }
            } catch {
                bus.emit(.failure(id, error))
            }
        }
        // After the whole batch, so the round's timer request is not overtaken by an
        // older one still in the list.
        if applied { checkPredecessors(of: document) }
        if !document.loadWaiters.isEmpty { resolveLoads(document) }
        // The server deleted it (a device that was offline learns it on joining): after
        // the batch, which still ran on the open document.
        if deleted { entryDeleted(id) }
    }

    /// A remote update left structs or deletions waiting for updates that never came:
    /// the machine asks the server for them.
    private func checkPredecessors(of document: OpenDocument) {
        if document.stored.doc.hasPendingUpdates {
            perform(document.machine.predecessorsMissing(now: now), for: document)
        } else {
            document.machine.predecessorsArrived()
        }
    }

    private func documentTick(_ id: DocumentID) {
        guard let document = documents[id] else { return }
        document.tickTimer = nil
        perform(document.machine.tick(now: now), for: document)
    }
}
