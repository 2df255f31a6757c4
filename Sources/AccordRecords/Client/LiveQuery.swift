public import AccordCRDT
public import AccordStore

/// What a live query shows: nothing yet, no match, the matching records, or why the
/// query failed.
public enum LiveQueryState: Sendable {
    case loading
    case empty
    case loaded([IndexedRecord])
    case failed(AccordError)
}

extension ClientRecords {
    /// A query that runs again whenever records of `model` change (after they are
    /// durable), at most once per `debounce`: `loading` first, then `empty` or
    /// `loaded(rows)` after each run. The stream ends when the consumer stops.
    public func liveQuery(
        _ model: String, filter: Filter = .all, options: QueryOptions = QueryOptions(),
        debounce: Duration = .milliseconds(16)
    ) -> AsyncStream<LiveQueryState> {
        // One pending change is enough to know a run is due: newer ones are folded in.
        let changes = changes(model, bufferingPolicy: .bufferingNewest(1))
        return AsyncStream { continuation in
            let task = Task { [self] in
                continuation.yield(.loading)
                continuation.yield(state(model, filter, options))
                for await _ in changes {
                    try? await Task.sleep(for: debounce)
                    if Task.isCancelled { break }
                    continuation.yield(state(model, filter, options))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func state(_ model: String, _ filter: Filter, _ options: QueryOptions) -> LiveQueryState {
        do {
            let rows = try query(model, filter: filter, options: options)
            return rows.isEmpty ? .empty : .loaded(rows)
        } catch {
            return .failed(error)
        }
    }
}
