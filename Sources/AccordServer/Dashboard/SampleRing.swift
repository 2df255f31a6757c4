/// The last `capacity` samples, oldest first, in a fixed array that wraps: the
/// overview's 15 minutes at one sample a second never grow past 900 entries.
struct SampleRing<Element> {
    private var storage: [Element] = []
    private var start = 0
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    var count: Int { storage.count }

    mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[start] = element
            start = (start + 1) % capacity
        }
    }

    /// Every element, oldest first.
    var elements: [Element] { Array(storage[start...] + storage[..<start]) }

    /// The newest element, if any.
    var last: Element? { storage.isEmpty ? nil : storage[(start + storage.count - 1) % storage.count] }
}
