/// Builds the document's tables while parsing, and enforces TOML's rules on defining
/// them: no key or table defined twice, no extending inline tables or static arrays,
/// and the rules on tables created by dotted keys and by headers.
///
/// Tables that can still grow live in an arena of mutable nodes addressed by index, so
/// adding a key deep in the tree mutates one node in place instead of copying every
/// enclosing value (what nested `TOMLTable` enums would cost). Inline tables and arrays
/// are finished when their closing bracket is read, so they are stored as plain
/// ``TOMLValue``s: frozen, as TOML says they are.
struct TableBuilder {
    enum Slot {
        /// A scalar, a static array or an inline table: frozen.
        case value(TOMLValue)
        /// A table that can still get keys.
        case table(Int)
        /// An array of tables (`[[a]]`): more elements may come; the last one is open.
        case tables([Int])
    }

    /// How a table came to exist, which decides what may define or extend it later.
    enum Origin {
        /// Created on the way to a deeper header (`a` in `[a.b]`): a later `[a]` defines it.
        case implicit
        /// Defined by its own `[header]` or as an element of `[[header]]`.
        case header
        /// Created by a dotted key in the section with this number: that section may add
        /// to it with more dotted keys; no header may define it afterwards.
        case dotted(section: Int)
    }

    struct Entry {
        var key: String
        var slot: Slot
        var position: TOMLPosition
    }

    struct Node {
        var entries: [Entry] = []
        var index: [TOMLKey: Int]? = nil
        var origin: Origin
        var position: TOMLPosition?
    }

    static let root = 0
    private static let indexThreshold = 12

    private var nodes: [Node] = [Node(origin: .header, position: nil)]
    private var sections = 0

    /// A fresh section number: one per table header, one per inline table.
    mutating func newSection() -> Int {
        sections += 1
        return sections
    }

    // MARK: - Headers

    /// `[a.b.c]`: defines the table, creating the ones on the way as needed.
    mutating func defineTable(_ key: [KeyPart], at position: TOMLPosition) throws(TOMLError) -> Int {
        let parent = try walkHeader(key)
        let last = key[key.count - 1]
        guard let i = find(last.name, in: parent) else {
            return add(last.name, origin: .header, keyPosition: last.position, tablePosition: position, to: parent)
        }
        let entry = nodes[parent].entries[i]
        switch entry.slot {
        case .table(let n):
            switch nodes[n].origin {
            case .implicit:
                nodes[n].origin = .header
                nodes[n].position = position
                return n
            case .header:
                throw TOMLError("table [\(Key.display(key))] defined twice (first at \(Self.lineText(nodes[n].position)))", at: position)
            case .dotted:
                throw TOMLError("table [\(Key.display(key))] was already defined by dotted keys (at \(Self.lineText(nodes[n].position)))", at: position)
            }
        case .tables:
            throw TOMLError("table [\(Key.display(key))] is already an array of tables (first at \(Self.lineText(entry.position)))", at: position)
        case .value(let value):
            throw Self.frozen(key, value, entry.position, at: position)
        }
    }

    /// `[[a.b.c]]`: appends a new table to the array of tables, creating it if needed.
    mutating func appendArrayTable(_ key: [KeyPart], at position: TOMLPosition) throws(TOMLError) -> Int {
        let parent = try walkHeader(key)
        let last = key[key.count - 1]
        let element = newNode(origin: .header, position: position)
        guard let i = find(last.name, in: parent) else {
            append(Entry(key: last.name, slot: .tables([element]), position: last.position), to: parent)
            return element
        }
        let entry = nodes[parent].entries[i]
        switch entry.slot {
        case .tables(var list):
            // Release the slot's reference first so the append does not copy the array.
            nodes[parent].entries[i].slot = .tables([])
            list.append(element)
            nodes[parent].entries[i].slot = .tables(list)
            return element
        case .table(let n):
            throw TOMLError("array of tables [[\(Key.display(key))]] conflicts with table [\(Key.display(key))] (at \(Self.lineText(nodes[n].position)))", at: position)
        case .value(let value):
            if case .array = value {
                throw TOMLError("cannot append to static array \(Key.display(key)) (defined at \(Self.lineText(entry.position)))", at: position)
            }
            throw Self.frozen(key, value, entry.position, at: position)
        }
    }

    /// Follows a header's key up to its parent, creating implicit tables on the way.
    /// Tables created by dotted keys may get sub-tables from headers (TOML 1.0,
    /// "Tables"); inline tables and arrays may not.
    private mutating func walkHeader(_ key: [KeyPart]) throws(TOMLError) -> Int {
        var node = Self.root
        for k in 0..<(key.count - 1) {
            let part = key[k]
            guard let i = find(part.name, in: node) else {
                node = add(part.name, origin: .implicit, keyPosition: part.position, tablePosition: part.position, to: node)
                continue
            }
            let entry = nodes[node].entries[i]
            switch entry.slot {
            case .table(let n): node = n
            case .tables(let list): node = list[list.count - 1]
            case .value(let value): throw Self.frozen(Array(key[...k]), value, entry.position, at: part.position)
            }
        }
        return node
    }

    // MARK: - Key/value pairs

    /// For `a.b.c = v` in table `table`: the table that gets `c`, creating `a` and `b` as
    /// needed. Throws if `c` is already there or the path is not open to dotted keys.
    mutating func resolveForValue(_ key: [KeyPart], in table: Int, section: Int) throws(TOMLError) -> Int {
        var node = table
        for k in 0..<(key.count - 1) {
            let part = key[k]
            guard let i = find(part.name, in: node) else {
                node = add(part.name, origin: .dotted(section: section), keyPosition: part.position, tablePosition: part.position, to: node)
                continue
            }
            let entry = nodes[node].entries[i]
            switch entry.slot {
            case .table(let n):
                switch nodes[n].origin {
                case .dotted(let s) where s == section:
                    break
                case .implicit:
                    // Only on the way to a deeper header so far; from now on it belongs
                    // to this section's dotted keys (tomllib behaves the same).
                    nodes[n].origin = .dotted(section: section)
                case .header:
                    throw TOMLError("cannot add to table [\(Key.display(Array(key[...k])))] with dotted keys: it is defined by a header (at \(Self.lineText(nodes[n].position)))", at: part.position)
                case .dotted:
                    throw TOMLError("cannot add to table \(Key.display(Array(key[...k]))) here: it was defined by dotted keys in another table (at \(Self.lineText(nodes[n].position)))", at: part.position)
                }
                node = n
            case .tables:
                throw TOMLError("cannot add to array of tables \(Key.display(Array(key[...k]))) with dotted keys (defined at \(Self.lineText(entry.position)))", at: part.position)
            case .value(let value):
                throw Self.frozen(Array(key[...k]), value, entry.position, at: part.position)
            }
        }
        let last = key[key.count - 1]
        if let i = find(last.name, in: node) {
            let first = nodes[node].entries[i].position
            throw TOMLError("key \(Key.display(key)) defined twice (first at \(Self.lineText(first)))", at: last.position)
        }
        return node
    }

    mutating func insert(_ key: String, _ value: TOMLValue, position: TOMLPosition, into node: Int) {
        append(Entry(key: key, slot: .value(value), position: position), to: node)
    }

    // MARK: - Inline tables

    /// Opens an inline table: a detached node that ``finishInline(_:)`` turns into a value.
    mutating func beginInline(at position: TOMLPosition) -> Int {
        newNode(origin: .header, position: position)
    }

    /// The inline table's value. Its nodes are the newest in the arena (nothing else is
    /// created while it is parsed), so they are dropped here, keeping the arena small.
    mutating func finishInline(_ node: Int) -> TOMLValue {
        let value = TOMLValue.table(table(node))
        nodes.removeSubrange(node...)
        return value
    }

    // MARK: - Output

    /// The finished ``TOMLTable`` for `node` and everything under it.
    func table(_ node: Int) -> TOMLTable {
        let source = nodes[node]
        var out = TOMLTable(reservingCapacity: source.entries.count, position: source.position)
        for entry in source.entries {
            let value: TOMLValue
            switch entry.slot {
            case .value(let v): value = v
            case .table(let n): value = .table(table(n))
            case .tables(let list): value = .array(list.map { .table(table($0)) })
            }
            out.append(entry.key, value, position: entry.position)
        }
        return out
    }

    // MARK: - Nodes

    private mutating func newNode(origin: Origin, position: TOMLPosition?) -> Int {
        nodes.append(Node(origin: origin, position: position))
        return nodes.count - 1
    }

    private mutating func add(
        _ key: String, origin: Origin, keyPosition: TOMLPosition, tablePosition: TOMLPosition, to parent: Int
    ) -> Int {
        let n = newNode(origin: origin, position: tablePosition)
        append(Entry(key: key, slot: .table(n), position: keyPosition), to: parent)
        return n
    }

    private mutating func append(_ entry: Entry, to node: Int) {
        nodes[node].entries.append(entry)
        let count = nodes[node].entries.count
        if nodes[node].index != nil {
            nodes[node].index![TOMLKey(entry.key)] = count - 1
        } else if count > Self.indexThreshold {
            var index: [TOMLKey: Int] = [:]
            for (i, e) in nodes[node].entries.enumerated() { index[TOMLKey(e.key)] = i }
            nodes[node].index = index
        }
    }

    private func find(_ key: String, in node: Int) -> Int? {
        if let index = nodes[node].index { return index[TOMLKey(key)] }
        let entries = nodes[node].entries
        for i in entries.indices where entries[i].key.utf8.elementsEqual(key.utf8) { return i }
        return nil
    }

    // MARK: - Messages

    private static func lineText(_ position: TOMLPosition?) -> String {
        guard let position else { return "the top level" }
        return "line \(position.line)"
    }

    private static func frozen(_ key: [KeyPart], _ value: TOMLValue, _ defined: TOMLPosition, at position: TOMLPosition) -> TOMLError {
        let name = Key.display(key)
        switch value {
        case .table:
            return TOMLError("cannot extend inline table \(name) (defined at \(lineText(defined)))", at: position)
        case .array:
            return TOMLError("cannot extend static array \(name) (defined at \(lineText(defined)))", at: position)
        default:
            return TOMLError("key \(name) is a value, not a table (defined at \(lineText(defined)))", at: position)
        }
    }
}
