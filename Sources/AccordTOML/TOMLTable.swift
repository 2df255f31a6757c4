/// A TOML table: keys in document order, each with its value and where it was defined.
///
/// Keys are distinct by their Unicode scalars (see ``TOMLKey``). Equality and hashing
/// treat a table as a map: order and positions are ignored, so a table built by hand
/// equals the same table parsed back from ``TOML/encode(_:)``.
public struct TOMLTable: Sendable, Hashable {
    struct Entry: Sendable {
        var key: String
        var value: TOMLValue
        var position: TOMLPosition?
    }

    private(set) var storage: [Entry] = []
    /// Built only once a table has more than `indexThreshold` keys: most TOML tables are
    /// small, and a linear scan over a few keys beats hashing each one.
    private var index: [TOMLKey: Int]?
    private static let indexThreshold = 12

    /// Where the table was defined: its `[header]`, or the first key that created it.
    public internal(set) var position: TOMLPosition?

    public init() {}

    init(reservingCapacity capacity: Int, position: TOMLPosition?) {
        storage.reserveCapacity(capacity)
        self.position = position
    }

    public var entries: [(key: String, value: TOMLValue)] { storage.map { ($0.key, $0.value) } }
    public var keys: [String] { storage.map(\.key) }
    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }

    public subscript(key: String) -> TOMLValue? {
        guard let i = slot(of: key) else { return nil }
        return storage[i].value
    }

    /// Where `key` was defined in this table.
    public func position(of key: String) -> TOMLPosition? {
        guard let i = slot(of: key) else { return nil }
        return storage[i].position
    }

    /// Sets `key` to `value`: replaces the value in place if the key is there, appends
    /// it otherwise.
    public mutating func set(_ key: String, _ value: TOMLValue, position: TOMLPosition? = nil) {
        if let i = slot(of: key) {
            storage[i].value = value
            storage[i].position = position
        } else {
            append(key, value, position: position)
        }
    }

    /// Removes `key`; returns its value.
    @discardableResult
    public mutating func remove(_ key: String) -> TOMLValue? {
        guard let i = slot(of: key) else { return nil }
        let value = storage.remove(at: i).value
        index = nil
        rebuildIndexIfLarge()
        return value
    }

    /// Appends a key known not to be present (the parser has checked).
    mutating func append(_ key: String, _ value: TOMLValue, position: TOMLPosition?) {
        storage.append(Entry(key: key, value: value, position: position))
        if index != nil {
            index![TOMLKey(key)] = storage.count - 1
        } else if storage.count > Self.indexThreshold {
            rebuildIndexIfLarge()
        }
    }

    private mutating func rebuildIndexIfLarge() {
        guard storage.count > Self.indexThreshold else { return }
        var built: [TOMLKey: Int] = [:]
        built.reserveCapacity(storage.count)
        for (i, entry) in storage.enumerated() { built[TOMLKey(entry.key)] = i }
        index = built
    }

    func slot(of key: String) -> Int? {
        if let index { return index[TOMLKey(key)] }
        for i in storage.indices where storage[i].key.utf8.elementsEqual(key.utf8) { return i }
        return nil
    }

    public static func == (lhs: TOMLTable, rhs: TOMLTable) -> Bool {
        guard lhs.storage.count == rhs.storage.count else { return false }
        for entry in lhs.storage {
            guard let other = rhs[entry.key], other == entry.value else { return false }
        }
        return true
    }

    /// Order-independent: each entry is hashed on its own and the results summed.
    public func hash(into hasher: inout Hasher) {
        var sum = 0
        for entry in storage {
            var h = Hasher()
            TOMLKey.hashBytes(entry.key, into: &h)
            h.combine(entry.value)
            sum = sum &+ h.finalize()
        }
        hasher.combine(storage.count)
        hasher.combine(sum)
    }
}
