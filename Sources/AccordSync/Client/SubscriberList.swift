import AccordStore

/// The streams an ``AccordClient`` hands out for one kind of per-document event
/// (presence events, broadcasts), each with the document it follows and a filter.
///
/// Confined to the client (a plain value in the actor), so adding, yielding and
/// removing happen in the order the client does them, with no lock.
struct SubscriberList<Element: Sendable, Filter: Sendable>: Sendable {
    private struct Subscriber: Sendable {
        let document: DocumentID
        let filter: Filter
        let continuation: AsyncStream<Element>.Continuation
    }

    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextKey: UInt64 = 0

    /// Registers a stream; the key removes it when its consumer goes away.
    mutating func add(document: DocumentID, filter: Filter, _ continuation: AsyncStream<Element>.Continuation) -> UInt64 {
        nextKey += 1
        subscribers[nextKey] = Subscriber(document: document, filter: filter, continuation: continuation)
        return nextKey
    }

    mutating func remove(_ key: UInt64) {
        subscribers[key] = nil
    }

    /// Hands `element` to every stream of `document` whose filter `admits`. Keys are
    /// visited in order so streams are fed in the order they were asked for.
    func yield(_ element: Element, document: DocumentID, where admits: (Filter) -> Bool) {
        for key in subscribers.keys.sorted() {
            guard let subscriber = subscribers[key], subscriber.document == document, admits(subscriber.filter) else { continue }
            subscriber.continuation.yield(element)
        }
    }

    func finishAll() {
        for subscriber in subscribers.values { subscriber.continuation.finish() }
    }

    var count: Int { subscribers.count }
}
