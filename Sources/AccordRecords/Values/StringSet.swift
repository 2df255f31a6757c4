/// The members of a string-set field: distinct by code points (never by canonical
/// equivalence, so `"é"` and `"e\u{301}"` are two members) and kept in code point order.
public struct StringSet: Sendable, Hashable, Sequence, ExpressibleByArrayLiteral {
    public private(set) var members: [String]

    public init<S: Sequence>(_ members: S) where S.Element == String {
        var sorted = members.sorted(by: CodePoints.less)
        var unique: [String] = []
        unique.reserveCapacity(sorted.count)
        for member in sorted where unique.last.map({ !CodePoints.equal($0, member) }) ?? true {
            unique.append(member)
        }
        sorted = unique
        self.members = sorted
    }

    public init(arrayLiteral elements: String...) { self.init(elements) }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public func makeIterator() -> IndexingIterator<[String]> { members.makeIterator() }

    public func contains(_ member: String) -> Bool { index(of: member).found }

    public mutating func insert(_ member: String) {
        let (position, found) = index(of: member)
        if !found { members.insert(member, at: position) }
    }

    public mutating func remove(_ member: String) {
        let (position, found) = index(of: member)
        if found { members.remove(at: position) }
    }

    /// Binary search in code point order.
    private func index(of member: String) -> (position: Int, found: Bool) {
        var low = 0
        var high = members.count
        while low < high {
            let middle = (low + high) / 2
            switch CodePoints.compare(members[middle], member) {
            case 0: return (middle, true)
            case ..<0: low = middle + 1
            default: high = middle
            }
        }
        return (low, false)
    }

    // Equality and hashing by code points, not by Swift's canonical equivalence.
    public static func == (a: StringSet, b: StringSet) -> Bool {
        a.members.count == b.members.count && zip(a.members, b.members).allSatisfy { CodePoints.equal($0, $1) }
    }

    public func hash(into hasher: inout Hasher) {
        for member in members { hasher.combine(Array(member.utf8)) }
    }
}
