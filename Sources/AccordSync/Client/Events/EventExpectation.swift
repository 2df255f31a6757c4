import AccordCRDT

/// The first event of a type that satisfies a predicate, subscribed when the
/// expectation is made: make it, take the action, then await ``value(timeout:)``, and
/// the action's event cannot slip by. (`async let e = client.nextEvent(...)` subscribes
/// only when its child task starts, which may be after the action on the next line.)
public struct EventExpectation<Event: AccordEvent>: Sendable {
    /// Already filtered by the expectation's predicate.
    private let stream: AsyncStream<Event>

    init(stream: AsyncStream<Event>) {
        self.stream = stream
    }

    /// The first matching event since the expectation was made. Await it once.
    /// - Throws: `UNAVAILABLE` after `timeout` or when the client stops first;
    ///   `CancellationError` when the calling task is cancelled.
    public func value(timeout: Duration = .seconds(10)) async throws -> Event {
        let stream = stream
        let found = try await withThrowingTaskGroup(of: Event?.self) { group in
            group.addTask {
                for await event in stream { return event }
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
                .unavailable, "no \(Event.self) within \(timeout)", details: ["event": String(describing: Event.self)])
        }
        return found
    }
}
