// Checks of records: the category + key -> value half of the protocol.

private let notes = StorageCategory("conformance.notes")
private let other = StorageCategory("conformance.other")

/// Lost overwrites: a cache that keeps the first write, or an upsert that ignores
/// conflicts, reads back stale data.
func checkRecordOverwrites(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    try adapter.commit([.put(notes, key: "k", value: [1])])
    try adapter.commit([.put(notes, key: "k", value: [2, 2])])
    try requireRecord(adapter, notes, "k", [2, 2], "second put in its own batch")
    try adapter.commit([.put(notes, key: "k", value: [3]), .put(notes, key: "k", value: [4, 4, 4])])
    try requireRecord(adapter, notes, "k", [4, 4, 4], "two puts in one batch")

    // Many keys, each overwritten a seeded number of times, some with shorter values.
    var random = ConformanceRandom(seed: 0x0E12_17E5)
    var model: [String: [UInt8]] = ["k": [4, 4, 4]]
    for round in 0..<6 {
        var batch: [StorageOperation] = []
        for index in 0..<200 where round == 0 || Int.random(in: 0..<3, using: &random) == 0 {
            let key = "key-\(index)"
            let value = random.bytes(Int.random(in: 0...40, using: &random)) + [UInt8(round)]
            batch.append(.put(notes, key: key, value: value))
            model[key] = value
        }
        try adapter.commit(batch)
    }
    for (key, value) in model {
        try requireRecord(adapter, notes, key, value, "after 6 rounds of overwrites")
    }
    try requireKeys(try adapter.keys(in: notes), byteOrdered(model.keys), "keys(in: \(notes))")
}

/// Merged categories: an adapter that keys rows by `key` alone, or joins category and
/// key with a separator ("a" + "b/c" == "a/b" + "c").
func checkCategoriesSeparate(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    let a = StorageCategory("a"), ab = StorageCategory("a/b"), abPrefix = StorageCategory("ab")
    // Canonically equivalent names, which Swift's `==` on String (and so a dictionary
    // keyed by String) treats as one.
    let composed = StorageCategory("\u{E9}"), decomposed = StorageCategory("e\u{301}")
    try adapter.commit([
        .put(notes, key: "same", value: [1]),
        .put(other, key: "same", value: [2]),
        .put(a, key: "b/c", value: [3]),
        .put(ab, key: "c", value: [4]),
        .put(abPrefix, key: "c", value: [5]),
        .put(other, key: "only-other", value: [6]),
        .put(composed, key: "k", value: [7]),
        .put(decomposed, key: "k", value: [8]),
    ])
    try requireRecord(adapter, notes, "same", [1])
    try requireRecord(adapter, other, "same", [2])
    try requireRecord(adapter, a, "b/c", [3])
    try requireRecord(adapter, ab, "c", [4])
    try requireRecord(adapter, abPrefix, "c", [5])
    try requireRecord(adapter, composed, "k", [7], "category \"\\u{e9}\"")
    try requireRecord(adapter, decomposed, "k", [8], "category \"e\\u{301}\"")
    try requireRecord(adapter, notes, "only-other", nil, "written only in \(other)")
    try requireRecord(adapter, a, "c", nil, "written only in \(ab) and \(abPrefix)")
    try requireKeys(try adapter.keys(in: notes), ["same"], "keys(in: \(notes))")
    try requireKeys(try adapter.keys(in: other), ["only-other", "same"], "keys(in: \(other))")
    try requireKeys(try adapter.keys(in: a), ["b/c"], "keys(in: \(a))")

    try adapter.commit([.delete(notes, key: "same")])
    try requireRecord(adapter, notes, "same", nil, "after deleting it")
    try requireRecord(adapter, other, "same", [2], "after deleting the same key in \(notes)")

    // Logs are separate too: the same sequence may start both logs.
    try adapter.commit([
        .append(notes, key: "log", sequence: 1, value: [10]),
        .append(other, key: "log", sequence: 1, value: [20]),
        .append(other, key: "log", sequence: 2, value: [21]),
    ])
    try requireLog(adapter, notes, "log", [.init(sequence: 1, value: [10])])
    try requireLog(adapter, other, "log", [.init(sequence: 1, value: [20]), .init(sequence: 2, value: [21])])
    try requireKeys(try adapter.logKeys(in: notes), ["log"], "logKeys(in: \(notes))")
    try requireKeys(try adapter.logKeys(in: a), [], "logKeys(in: \(a))")
    try adapter.commit([.deleteLog(other, key: "log")])
    try requireLog(adapter, notes, "log", [.init(sequence: 1, value: [10])], "after deleting the log in \(other)")
}

/// Empty values must not turn into "no record" (or NULL), and no byte may be
/// transcoded, trimmed or treated as a terminator.
func checkValuesExact(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    let everyByte = (0...255).map { UInt8($0) }
    let values: [String: [UInt8]] = [
        "empty": [],
        "every-byte": everyByte,
        "every-byte-reversed": everyByte.reversed(),
        "nul": [0],
        "nuls": [0, 0, 0, 65, 0],
        "invalid-utf8": [0xC3, 0x28, 0xFF, 0xFE, 0x80],
        "bom": [0xEF, 0xBB, 0xBF, 0x41],
    ]
    try adapter.commit(values.map { .put(notes, key: $0.key, value: $0.value) })
    for (key, value) in values { try requireRecord(adapter, notes, key, value) }

    let entries = [
        StorageLogEntry(sequence: 1, value: []),
        StorageLogEntry(sequence: 2, value: everyByte),
        StorageLogEntry(sequence: 3, value: [0]),
    ]
    try adapter.commit(entries.map { .append(notes, key: "log", sequence: $0.sequence, value: $0.value) })
    try requireLog(adapter, notes, "log", entries)
}

/// Keys that a path-based, case-folding, normalizing or C-string adapter would merge,
/// mangle or truncate.
let conformanceTrickyKeys: [String] = [
    "", " ", "a", "A", "a/b", "a\\b", "/", "//", "..", "a/../b", "nul\u{0}inside", "nul", "trailing\u{0}",
    "\u{0}", "'quote", "\"double\"", "%", "_", "*", "?", "a b", "tab\tnew\nline",
    "\u{E9}", "e\u{301}", "\u{C5}", "A\u{30A}", "\u{212B}", "ﬁ", "fi", "日本語", "👩‍👩‍👧", "\u{FFFD}", "😀",
    "\u{7F}", "\u{80}", "\u{FEFF}bom", String(repeating: "long", count: 256),
]

func checkKeysExact(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    let valued = conformanceTrickyKeys.enumerated().map { (key: $0.element, value: [UInt8(truncatingIfNeeded: $0.offset), 0xAB]) }
    try adapter.commit(valued.map { .put(notes, key: $0.key, value: $0.value) })
    for (key, value) in valued { try requireRecord(adapter, notes, key, value) }
    let listed = try adapter.keys(in: notes)
    try requireKeys(byteOrdered(listed), byteOrdered(conformanceTrickyKeys), "keys(in: \(notes)), sorted by bytes")

    try adapter.commit(valued.map { .append(notes, key: $0.key, sequence: 7, value: $0.value) })
    for (key, value) in valued { try requireLog(adapter, notes, key, [.init(sequence: 7, value: value)]) }
    let listedLogs = try adapter.logKeys(in: notes)
    try requireKeys(byteOrdered(listedLogs), byteOrdered(conformanceTrickyKeys), "logKeys(in: \(notes)), sorted by bytes")

    // Deleting one of two canonically equivalent keys leaves the other.
    try adapter.commit([.delete(notes, key: "e\u{301}"), .deleteLog(notes, key: "\u{E9}")])
    let composed = valued.first { Array($0.key.utf8) == [0xC3, 0xA9] }?.value
    try requireRecord(adapter, notes, "\u{E9}", composed, "after deleting \"e\\u{301}\"")
    try requireRecord(adapter, notes, "e\u{301}", nil)
    try require(try adapter.lastSequence(notes, key: "e\u{301}") == 7,
                "deleting the log \"\\u{e9}\" removed the log \"e\\u{301}\"")
}

/// Byte order, not Swift's `<` (which normalizes: "f" < "e\u{301}"), UTF-16 order
/// ("😀" < "\u{FFFD}") or a locale's (case-insensitive).
func checkKeyOrder(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    let keys = ["b", "B", "a", "", "a\u{0}", "a/", "a0", "aa", "f", "e\u{301}", "\u{E9}", "\u{FFFD}", "😀", "Z", "~"]
    let expected = ["", "B", "Z", "a", "a\u{0}", "a/", "a0", "aa", "b", "e\u{301}", "f", "~", "\u{E9}", "\u{FFFD}", "😀"]
    try require(byteOrdered(keys).map { Array($0.utf8) } == expected.map { Array($0.utf8) },
                "internal: the expected key order is not byte order")
    // Write in a scrambled order, over several batches.
    try adapter.commit(keys.prefix(7).reversed().map { .put(notes, key: $0, value: [1]) })
    try adapter.commit(keys.dropFirst(7).map { .put(notes, key: $0, value: [2]) })
    try requireKeys(try adapter.keys(in: notes), expected, "keys(in: \(notes))")
    try adapter.commit(keys.reversed().map { .append(notes, key: $0, sequence: 1, value: [3]) })
    try requireKeys(try adapter.logKeys(in: notes), expected, "logKeys(in: \(notes))")
}

/// Absence is a normal answer, not an error.
func checkMissingNames(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    try requireRecord(adapter, notes, "missing", nil)
    try requireLog(adapter, notes, "missing", [])
    try require(try adapter.readLog(notes, key: "missing", after: 5, limit: 3).isEmpty, "readLog of a missing log is not empty")
    try requireKeys(try adapter.keys(in: notes), [], "keys(in:) of an unused category")
    try requireKeys(try adapter.logKeys(in: notes), [], "logKeys(in:) of an unused category")
    try adapter.commit([])
    try adapter.commit([
        .delete(notes, key: "missing"), .truncateLog(notes, key: "missing", through: 10),
        .deleteLog(notes, key: "missing"),
    ])
    try adapter.commit([.put(notes, key: "present", value: [1]), .delete(notes, key: "present")])
    try adapter.commit([.delete(notes, key: "present")])
    try requireKeys(try adapter.keys(in: notes), [], "keys(in:) after deleting everything")
    try requireKeys(try adapter.logKeys(in: notes), [], "logKeys(in:) after deleting missing logs")
}

/// Snapshots and blob chunks are megabytes; an adapter with a small row or page limit
/// truncates or rejects them.
func checkLargeValues(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    var random = ConformanceRandom(seed: 0x1A26_E000)
    let big = random.bytes(4 << 20)
    let bigEntry = random.bytes(4 << 20)
    try adapter.commit([
        .put(notes, key: "big", value: big),
        .append(notes, key: "big-log", sequence: 1, value: bigEntry),
        .append(notes, key: "big-log", sequence: 2, value: [9]),
    ])
    try requireRecord(adapter, notes, "big", big)
    try requireLog(adapter, notes, "big-log", [.init(sequence: 1, value: bigEntry), .init(sequence: 2, value: [9])])
    try adapter.commit([.put(notes, key: "big", value: [1, 2, 3])])
    try requireRecord(adapter, notes, "big", [1, 2, 3], "a small value replacing a large one")
}
