/// A shared type's map part: each key's rightmost item (``TypeRecord/map``).
///
/// Most maps are small (a record's handful of fields), and a `Dictionary` cost each of
/// them a hashed table of its own, about 200 bytes for seven keys, plus rehashing as it
/// grew. Up to ``smallLimit`` keys live in one array in key order (8 bytes a key, found
/// by binary search); past it, in a `Dictionary`, as a root map of a million records
/// needs. Iteration order is unspecified, as a `Dictionary`'s was: readers sort.
struct KeyMap: Sequence, ExpressibleByDictionaryLiteral {
    struct Entry {
        var key: Int32
        var item: ItemRef
    }

    private enum Storage {
        case small(ContiguousArray<Entry>)
        case large([Int32: ItemRef])
    }

    static let smallLimit = 16
    /// The capacity of a map's first entry array.
    static let firstCapacity = 8
    private var storage: Storage = .small([])

    init() {}

    init(dictionaryLiteral elements: (Int32, ItemRef)...) {
        for (key, item) in elements { self[key] = item }
    }

    var isEmpty: Bool {
        switch storage {
        case .small(let entries): entries.isEmpty
        case .large(let table): table.isEmpty
        }
    }

    /// Every key, in no particular order.
    var keys: [Int32] { map(\.key) }

    subscript(key: Int32) -> ItemRef? {
        get {
            switch storage {
            case .small(let entries):
                let index = Self.position(of: key, in: entries)
                return index < entries.count && entries[index].key == key ? entries[index].item : nil
            case .large(let table):
                return table[key]
            }
        }
        set {
            switch storage {
            case .small(var entries):
                // Taken out of `storage` first, so the array is unique and changes in place.
                storage = .small([])
                let index = Self.position(of: key, in: entries)
                let present = index < entries.count && entries[index].key == key
                switch (newValue, present) {
                case (let item?, true): entries[index].item = item
                case (let item?, false):
                    // Room for a record's handful of fields at once: growing one at a
                    // time (2, 4, 8) was three allocations per record map.
                    if entries.isEmpty { entries.reserveCapacity(Self.firstCapacity) }
                    // Keys are interned as first seen, so a record's fields, set in schema
                    // order, mostly come last: appending skips the general insert.
                    if index == entries.count {
                        entries.append(Entry(key: key, item: item))
                    } else {
                        entries.insert(Entry(key: key, item: item), at: index)
                    }
                case (nil, true): entries.remove(at: index)
                case (nil, false): break
                }
                if entries.count > Self.smallLimit {
                    var table: [Int32: ItemRef] = [:]
                    table.reserveCapacity(entries.count * 2)
                    for entry in entries { table[entry.key] = entry.item }
                    storage = .large(table)
                } else {
                    storage = .small(entries)
                }
            case .large(var table):
                storage = .small([])
                table[key] = newValue
                storage = .large(table)
            }
        }
    }

    /// The first index whose key is not below `key` (entries are in key order).
    private static func position(of key: Int32, in entries: ContiguousArray<Entry>) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func makeIterator() -> Iterator {
        switch storage {
        case .small(let entries): Iterator(entries: entries, table: nil)
        case .large(let table): Iterator(entries: [], table: table.makeIterator())
        }
    }

    struct Iterator: IteratorProtocol {
        fileprivate let entries: ContiguousArray<Entry>
        fileprivate var table: Dictionary<Int32, ItemRef>.Iterator?
        private var index = 0

        fileprivate init(entries: ContiguousArray<Entry>, table: Dictionary<Int32, ItemRef>.Iterator?) {
            self.entries = entries
            self.table = table
        }

        mutating func next() -> (key: Int32, item: ItemRef)? {
            if table != nil { return table!.next().map { ($0.key, $0.value) } }
            guard index < entries.count else { return nil }
            defer { index += 1 }
            return (entries[index].key, entries[index].item)
        }
    }
}
