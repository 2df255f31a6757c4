/// What a check gets: its own storage slot, opened empty, and reopened on request.
struct ConformanceContext {
    let subject: StorageConformanceSubject
    let slot: Int

    /// The check's storage. For a fresh subject every call gives a new empty adapter;
    /// for a persistent one every call opens the same slot.
    func makeAdapter() throws -> any StorageAdapter {
        try subject.open(slot)
    }

    /// Opens the check's slot again; the caller must have released its previous
    /// adapter. Skips the check when the subject cannot reopen.
    func reopen() throws -> any StorageAdapter {
        try requireReopenable()
        return try subject.open(slot)
    }

    /// Skips the check when the subject cannot reopen storage.
    func requireReopenable() throws(ConformanceSkip) {
        guard subject.canReopen else {
            throw ConformanceSkip(reason: "the subject cannot reopen storage (use .persistent to test it)")
        }
    }
}

/// A broken promise; the message says what was expected and what came back.
struct ConformanceFailure: Error {
    var message: String
}

/// A check that does not apply to the subject.
struct ConformanceSkip: Error {
    var reason: String
}

func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(ConformanceFailure) {
    if !condition { throw ConformanceFailure(message: message()) }
}

/// Fails unless `body` throws: for operations the protocol says an adapter rejects.
func requireThrows(_ what: @autoclosure () -> String, _ body: () throws -> Void) throws(ConformanceFailure) {
    do {
        try body()
    } catch {
        return
    }
    throw ConformanceFailure(message: "\(what()) was accepted; the adapter must reject it")
}

/// Fails unless the record under `key` is exactly `expected` (nil: no record).
func requireRecord(
    _ adapter: any StorageAdapter, _ category: StorageCategory, _ key: String, _ expected: [UInt8]?,
    _ context: @autoclosure () -> String = ""
) throws {
    let actual = try adapter.read(category, key: key)
    guard actual != expected else { return }
    let suffix = context().isEmpty ? "" : " (\(context()))"
    throw ConformanceFailure(message: """
        read(\(category), \(describe(key: key))) gave \(describe(actual)), expected \(describe(expected))\(suffix)
        """)
}

/// Fails unless the whole log, and its `lastSequence`, are exactly `expected`.
func requireLog(
    _ adapter: any StorageAdapter, _ category: StorageCategory, _ key: String, _ expected: [StorageLogEntry],
    _ context: @autoclosure () -> String = ""
) throws {
    let suffix = context().isEmpty ? "" : " (\(context()))"
    let actual = try adapter.readLog(category, key: key, after: 0, limit: Int.max)
    if actual != expected {
        throw ConformanceFailure(message: """
            readLog(\(category), \(describe(key: key))) gave \(describe(actual)), expected \(describe(expected))\(suffix)
            """)
    }
    let last = try adapter.lastSequence(category, key: key)
    if last != expected.last?.sequence {
        throw ConformanceFailure(message: """
            lastSequence(\(category), \(describe(key: key))) gave \(describe(last)), \
            expected \(describe(expected.last?.sequence))\(suffix)
            """)
    }
}

/// Fails unless `actual` is exactly `expected`, compared byte for byte (Swift's `==`
/// on strings would equate "é" with "e\u{301}", which an adapter must not).
func requireKeys(_ actual: [String], _ expected: [String], _ what: @autoclosure () -> String) throws(ConformanceFailure) {
    guard actual.map({ Array($0.utf8) }) != expected.map({ Array($0.utf8) }) else { return }
    throw ConformanceFailure(message: """
        \(what()) gave [\(actual.map(describe(key:)).joined(separator: ", "))], \
        expected [\(expected.map(describe(key:)).joined(separator: ", "))]
        """)
}

/// `keys` in ascending UTF-8 byte order, the order the protocol promises.
func byteOrdered(_ keys: some Sequence<String>) -> [String] {
    keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
}

// MARK: Descriptions for failure messages (bounded, so a 4 MiB value prints short)

/// A key with every non-printable or non-ASCII scalar escaped, so keys that differ
/// only in normalization or a NUL read differently in a message.
func describe(key: String) -> String {
    var text = "\""
    for scalar in key.unicodeScalars {
        if scalar.isASCII, scalar.value >= 0x20, scalar.value < 0x7F, scalar != "\"", scalar != "\\" {
            text.unicodeScalars.append(scalar)
        } else {
            text += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
    return text + "\""
}

func describe(_ bytes: [UInt8]?) -> String {
    guard let bytes else { return "nothing" }
    let head = bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: " ")
    return "\(bytes.count) bytes [\(head)\(bytes.count > 8 ? " ..." : "")]"
}

func describe(_ sequence: UInt64?) -> String {
    sequence.map(String.init) ?? "nil"
}

func describe(_ entries: [StorageLogEntry]) -> String {
    let shown = entries.prefix(12).map { "\($0.sequence):\($0.value.count)B" }.joined(separator: ", ")
    return "\(entries.count) entries [\(shown)\(entries.count > 12 ? ", ..." : "")]"
}

// MARK: Seeded data

/// SplitMix64 (Steele, Lea, Flood 2014), copied here because AccordStore cannot depend
/// on AccordTesting: every check's data is the same on every run.
struct ConformanceRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            withUnsafeBytes(of: next().littleEndian) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }
}
