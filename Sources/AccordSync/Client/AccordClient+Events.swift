import AccordCRDT

extension AccordClient {
    /// Every event from now on, for as long as the loop reading it runs.
    public nonisolated var events: AsyncStream<ClientEvent> { bus.subscribe() }

    /// The events of one type from now on, as an `AsyncStream` that lives as long as the
    /// loop reading it (ending the loop or cancelling its task unsubscribes). Finishes
    /// when the client stops. `stream(for: ClientEvent.self)` gives every event.
    public nonisolated func stream<Event: AccordEvent>(for type: Event.Type) -> AsyncStream<Event> {
        let all = bus.subscribe()
        return AsyncStream { continuation in
            let forward = Task {
                for await event in all {
                    if let match = event as? Event ?? event.typed as? Event { continuation.yield(match) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in forward.cancel() }
        }
    }

    /// The first event of a type, emitted after the call starts, that satisfies
    /// `predicate`. Only events emitted after the subscription count: an `async let`
    /// subscribes when its child task starts, which may be after an action taken on the
    /// next line already emitted the event. To catch the effect of an action for sure,
    /// subscribe first with ``stream(for:)`` and read it after acting.
    /// - Throws: `UNAVAILABLE` after `timeout` or when the client stops first;
    ///   `CancellationError` when the calling task is cancelled.
    public nonisolated func nextEvent<Event: AccordEvent>(
        _ type: Event.Type, timeout: Duration = .seconds(10),
        where predicate: @escaping @Sendable (Event) -> Bool = { _ in true }
    ) async throws -> Event {
        let events = stream(for: type)
        let found = try await withThrowingTaskGroup(of: Event?.self) { group in
            group.addTask {
                for await event in events where predicate(event) { return event }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        try Task.checkCancellation()
        guard let found else {
            throw AccordError(
                .unavailable, "no \(Event.self) within \(timeout)",
                details: ["event": String(describing: Event.self)])
        }
        return found
    }
}
