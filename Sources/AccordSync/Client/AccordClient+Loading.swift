import AccordCRDT
import AccordStore

extension AccordClient {
    /// Suspends until the document has taken a step 2 from the server that it had not
    /// taken when the wait began, or fails: the server's coded error about the document,
    /// `DOCUMENT_UNAVAILABLE_OFFLINE` when the client goes offline, `NETWORK_TIMEOUT`
    /// after the handshake budget, `DOCUMENT_NOT_OPEN` when it is closed meanwhile.
    func waitForServerState(_ document: OpenDocument) async throws(AccordError) {
        nextLoadKey += 1
        let key = nextLoadKey
        let id = document.id
        let budget = handshakeBudget
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let timeout = timer(at: now + budget) { client in
                    client.failLoad(id, key: key, with: AccordError(
                        .networkTimeout, "the server did not send document \(id) within \(budget) ms",
                        details: ["document": id.rawValue, "budget": String(budget)]))
                }
                document.loadWaiters.append(
                    LoadWaiter(key: key, after: document.machine.serverStatesReceived, continuation: continuation, timeout: timeout))
            }
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(.unavailable, "waiting for document \(id) failed: \(error)", details: ["document": id.rawValue])
        }
    }

    /// Resumes the waits the document's machine has answered (called after its actions).
    func resolveLoads(_ document: OpenDocument) {
        let received = document.machine.serverStatesReceived
        let (done, waiting) = (
            document.loadWaiters.filter { received > $0.after }, document.loadWaiters.filter { received <= $0.after }
        )
        guard !done.isEmpty else { return }
        document.loadWaiters = waiting
        for waiter in done {
            waiter.timeout.cancel()
            waiter.continuation.resume()
        }
    }

    func failLoads(_ document: OpenDocument, with error: AccordError) {
        let waiters = document.loadWaiters
        document.loadWaiters = []
        for waiter in waiters {
            waiter.timeout.cancel()
            waiter.continuation.resume(throwing: error)
        }
    }

    func failEveryLoad(with error: (DocumentID) -> AccordError) {
        for document in documents.values where !document.loadWaiters.isEmpty {
            failLoads(document, with: error(document.id))
        }
    }

    private func failLoad(_ id: DocumentID, key: UInt64, with error: AccordError) {
        guard let document = documents[id], let index = document.loadWaiters.firstIndex(where: { $0.key == key }) else {
            return
        }
        let waiter = document.loadWaiters.remove(at: index)
        waiter.continuation.resume(throwing: error)
    }
}
