/// A list for plain values that keeps its slots when emptied: ``removeAll()`` resets a
/// count and nothing else.
///
/// Why not `Array.removeAll(keepingCapacity: true)`: it goes through the generic
/// `replaceSubrange`, tens of instructions per call, and a transaction empties several
/// lists every keystroke. Only for trivial element types (integers, structs of them):
/// slots past `count` keep stale values, which must own nothing.
struct ReusableList<Element>: RandomAccessCollection, MutableCollection {
    private var storage: ContiguousArray<Element> = []
    private(set) var count = 0

    init() {
        assert(_isPOD(Element.self), "ReusableList keeps stale elements; they must own nothing")
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }
    var isEmpty: Bool { count == 0 }

    subscript(position: Int) -> Element {
        get {
            precondition(position < count, "index out of range")
            return storage[position]
        }
        set {
            precondition(position < count, "index out of range")
            storage[position] = newValue
        }
    }

    mutating func append(_ element: Element) {
        if count < storage.count {
            storage[count] = element
        } else {
            storage.append(element)
        }
        count += 1
    }

    /// Empties the list, keeping every slot for the next use.
    mutating func removeAll() { count = 0 }

    /// Keeps the first `newCount` elements.
    mutating func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count, "truncate beyond the end")
        count = newCount
    }
}
