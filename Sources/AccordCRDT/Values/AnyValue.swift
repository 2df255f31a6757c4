/// A plain value stored in a shared type: what Yjs calls "any".
///
/// Numbers: integers are `.int` (64-bit); other numbers are `.double`. A number that
/// arrives as a float but is integral (Yrs writes `1` as float32 1.0) is read as
/// `.int`, which is how JavaScript peers see it too.
public enum AnyValue: Sendable, Hashable {
    case undefined
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case bytes([UInt8])
    case array([AnyValue])
    case object(OrderedObject)

    /// The Swift-friendly object constructor: `.object(["a": 1])`.
    public static func object(_ dictionary: [String: AnyValue]) -> AnyValue {
        .object(OrderedObject(dictionary.sorted { $0.key < $1.key }))
    }

    /// A number normalised the way JavaScript sees it: integral values within
    /// ±(2^53-1) become `.int`, everything else (fractions, -0, NaN, infinities) stays double.
    static func number(_ d: Double) -> AnyValue {
        if d.rounded(.towardZero) == d, abs(d) <= 9_007_199_254_740_991, !(d == 0 && d.sign == .minus) {
            return .int(Int64(d))
        }
        return .double(d)
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var intValue: Int64? { if case .int(let i) = self { return i } else { return nil } }
    public var doubleValue: Double? {
        switch self {
        case .double(let d): return d
        case .int(let i): return Double(i)
        default: return nil
        }
    }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var arrayValue: [AnyValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: OrderedObject? { if case .object(let o) = self { return o } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }
}

extension AnyValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: AnyValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, AnyValue)...) { self = .object(OrderedObject(elements)) }
}

/// A JSON-like object that remembers the order of its keys, so content decoded from a
/// peer re-encodes to the same bytes. Equality and hashing ignore the order.
public struct OrderedObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var entries: [(key: String, value: AnyValue)] = []

    public init() {}
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, AnyValue) {
        var builder = Builder()
        for (k, v) in pairs { builder.set(k, v) }
        self = builder.object
    }

    /// Builds an object in linear time; a repeated key overwrites in place, as in JS.
    /// Small objects (most) find a key by comparing, which is cheaper than hashing it;
    /// past ``indexedFrom`` keys a dictionary indexes them.
    struct Builder {
        static let indexedFrom = 12
        var object = OrderedObject()
        private var index: [String: Int]?
        func contains(_ key: String) -> Bool { position(key) != nil }
        private func position(_ key: String) -> Int? {
            if let index { return index[key] }
            return object.entries.firstIndex { $0.key == key }
        }
        mutating func set(_ key: String, _ value: AnyValue) {
            if let i = position(key) {
                object.entries[i].value = value
                return
            }
            object.entries.append((key, value))
            if index != nil {
                index![key] = object.entries.count - 1
            } else if object.entries.count >= Self.indexedFrom {
                var built: [String: Int] = [:]
                for (i, entry) in object.entries.enumerated() { built[entry.key] = i }
                index = built
            }
        }
    }
    public init(dictionaryLiteral elements: (String, AnyValue)...) { self.init(elements) }

    /// An object of entries whose keys are already distinct (taken from another
    /// object), without looking for repeats.
    package init(distinctEntries: [(key: String, value: AnyValue)]) { entries = distinctEntries }

    public var count: Int { entries.count }
    public var keys: [String] { entries.map(\.key) }
    public var dictionary: [String: AnyValue] {
        Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    public subscript(key: String) -> AnyValue? {
        get { entries.first { $0.key == key }?.value }
        set {
            if let i = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append((key, newValue))
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: AnyValue)]> { entries.makeIterator() }

    public static func == (a: OrderedObject, b: OrderedObject) -> Bool {
        a.count == b.count && a.entries.allSatisfy { b[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine per-entry hashes commutatively.
        var sum = 0
        for (k, v) in entries {
            var h = Hasher()
            h.combine(k)
            h.combine(v)
            sum = sum &+ h.finalize()
        }
        hasher.combine(count)
        hasher.combine(sum)
    }
}
