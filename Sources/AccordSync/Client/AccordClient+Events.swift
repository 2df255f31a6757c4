import AccordCRDT

extension AccordClient {
    /// Every event from now on, for as long as the loop reading it runs.
    public nonisolated var events: AsyncStream<ClientEvent> { bus.subscribe() }

    /// The events of one type from now on (those satisfying `predicate`), as an
    /// `AsyncStream` that lives as long as the loop reading it (ending the loop or
    /// cancelling its task unsubscribes). Finishes when the client stops.
    /// `stream(for: ClientEvent.self)` gives every event.
    public nonisolated func stream<Event: AccordEvent>(
        for type: Event.Type, where predicate: @escaping @Sendable (Event) -> Bool = { _ in true }
    ) -> AsyncStream<Event> {
        let all = bus.subscribe()
        return AsyncStream { continuation in
            let forward = Task {
                for await event in all {
                    if let match = event as? Event ?? event.typed as? Event, predicate(match) { continuation.yield(match) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in forward.cancel() }
        }
    }

    /// Subscribes now to the first event of a type that satisfies `predicate`; await
    /// it with ``EventExpectation/value(timeout:)`` after taking the action that should
    /// cause it.
    public nonisolated func expectEvent<Event: AccordEvent>(
        _ type: Event.Type, where predicate: @escaping @Sendable (Event) -> Bool = { _ in true }
    ) -> EventExpectation<Event> {
        EventExpectation(stream: stream(for: type, where: predicate))
    }

    /// The first event of a type, emitted after the call subscribed, that satisfies
    /// `predicate`. An `async let` subscribes when its child task starts, possibly after
    /// an action on the next line already emitted the event: use ``expectEvent(_:where:)``
    /// to catch the effect of an action for sure.
    /// - Throws: `UNAVAILABLE` after `timeout` or when the client stops first;
    ///   `CancellationError` when the calling task is cancelled.
    public nonisolated func nextEvent<Event: AccordEvent>(
        _ type: Event.Type, timeout: Duration = .seconds(10),
        where predicate: @escaping @Sendable (Event) -> Bool = { _ in true }
    ) async throws -> Event {
        try await expectEvent(type, where: predicate).value(timeout: timeout)
    }
}
