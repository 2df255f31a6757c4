import Dispatch
import AccordCRDT
import AccordStore

extension SyncHub {
    /// Runs `body` on the hub's queue with the room of `document`, loading it if needed
    /// (a room nobody joined is unloaded after the idle time like any other). For the
    /// records routes, whose reads and writes go through the document the sync clients
    /// share. Call it off the queue.
    /// - Throws: `DOCUMENT_UNAVAILABLE` when the server is stopping or the document
    ///   cannot be loaded now (the stored document is untouched), or what `body` throws.
    func withRoom<T>(_ document: DocumentID, _ body: (Room) throws(AccordError) -> T) throws(AccordError) -> T {
        let result: Result<T, AccordError> = queue.sync {
            do throws(AccordError) {
                guard !isStopped else { throw Self.unavailable(document, cause: "the server is stopping") }
                let room: Room
                do throws(AccordError) {
                    room = try loadRoom(document)
                } catch {
                    throw Self.unavailable(document, cause: error.code.rawValue)
                }
                if room.connections.isEmpty, rooms[document]?.idleSince == nil {
                    rooms[document]?.idleSince = options.now()
                }
                return .success(try body(room))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Stores a ``Room/serverEdit(_:)`` durably (appended and flushed), then sends it to
    /// the room's members: a REST write is durable before anyone hears of it, and before
    /// the response. Call it on the queue (inside ``withRoom(_:_:)``).
    func commit(_ edit: (update: [UInt8], actions: [RoomAction]), in room: Room) throws(AccordError) {
        dispatchPrecondition(condition: .onQueue(queue))
        do throws(AccordError) {
            let sequence = try documents.append(edit.update, to: room.id, isLocal: false)
            try documents.flush()
            room.persisted(storeSequence: sequence, ack: nil, now: options.now())
            updateAppended?(room.id, edit.update.count, options.now())
        } catch {
            // The room's copy already holds the edit; members still get it, so they
            // agree with the server, and the next flush retries the buffered update.
            perform(edit.actions, in: room)
            throw Self.unavailable(room.id, cause: error.code.rawValue)
        }
        perform(edit.actions, in: room)
    }

    static func unavailable(_ document: DocumentID, cause: String) -> AccordError {
        AccordError(
            .documentUnavailable, "The document is momentarily unreachable; retry the write",
            details: ["document": document.rawValue, "cause": cause])
    }
}
