public import AccordCRDT

extension DocumentSyncMachine {
    /// A frame the server sent under this document.
    public mutating func received(_ frame: ProtocolFrame, now: UInt64) -> [DocumentSyncAction] {
        guard !localOnly, isConnected else { return [] }
        switch frame {
        case .sync(.step1(let stateVector)):
            // Answering would send our content: pointless when nothing is exchanged, and
            // refused again while parked.
            guard mode.exchanges, parked == nil else { return [] }
            return [.answerStepOne(stateVector: stateVector)]
        case .sync(.step2(let update)):
            // Only an answer to our own step 1 is taken; it holds everything we lacked.
            guard stepTwosAwaited > 0 else { return [] }
            stepTwosAwaited -= 1
            serverStatesReceived += 1
            return finish(applying(update) + progressed(now: now))
        case .sync(.update(let update)):
            guard mode.pullsLive else { return [] }
            return applying(update)
        case .awareness(let bytes):
            return mode.pullsLive ? [.deliverAwareness(bytes)] : []
        case .custom(AccordMessage.frameType, _):
            // The driver decoded the envelope, which checks the inner message already.
            guard let message = try? AccordMessage.decode(frame: frame) else { return [] }
            return finish(receivedAccordMessage(message, now: now))
        case .auth, .queryAwareness, .custom:
            return []  // the multiplexed endpoint refuses with coded errors; the rest is not ours
        }
    }

    private mutating func receivedAccordMessage(_ message: AccordMessage, now: UInt64) -> [DocumentSyncAction] {
        switch message {
        case .ack(_, let through):
            // Acks are facts about the server's storage, taken in every mode. Never past
            // what was sent on this connection: the store refuses unknown sequences.
            let through = min(through, sentThrough)
            guard through > acknowledged else { return [] }
            acknowledged = through
            outbox.removeAll { $0.sequence <= through }
            return [.acknowledge(through: through)] + progressed(now: now)
        case .error(let code, let text, _):
            let error = AccordError(ErrorCode(rawValue: code), text, details: ["document": id.rawValue])
            guard WriteRefusal.refusesWrites(error) else { return [.emit(.serverError(error))] }
            // One event per refusal: the updates and step 2 in flight are refused alike.
            guard parked == nil else { return [] }
            parked = error
            return [.emit(.writeRejected(error))] + settle(now: now)
        case .broadcast(_, let topic, let payload, let sender):
            return mode.pullsLive ? [.deliverBroadcast(topic: topic, payload: payload, sender: sender)] : []
        case .hello, .update, .leave, .directory, .channel:
            return []  // connection-wide, or client-to-server
        }
    }

    /// The server answered something: a fresh budget if still behind, else settle.
    private mutating func progressed(now: UInt64) -> [DocumentSyncAction] {
        if isBehind { deadline = now + handshakeBudget }
        return settle(now: now)
    }

    /// `00 00` (no structs, no deletions) is what a peer with nothing for us sends;
    /// appending it to the store would only grow the log.
    private func applying(_ update: [UInt8]) -> [DocumentSyncAction] {
        isEmptyUpdate(update) ? [] : [.apply(update: update)]
    }
}
