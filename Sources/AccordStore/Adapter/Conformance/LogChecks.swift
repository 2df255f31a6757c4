// Checks of ordered logs: the category + key -> entries-by-sequence half of the protocol.

private let updates = StorageCategory("conformance.updates")

/// Reordered logs: entries must come back by ascending sequence whatever the storage
/// order, and `after:`/`limit:` must select exactly the entries a reader asked for
/// (the document store resumes reading from the last sequence it applied).
func checkLogOrder(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    var random = ConformanceRandom(seed: 0x10_60_4DE2)
    let names = ["log-a", "log-b", "log-c"]
    var model: [String: [StorageLogEntry]] = [:]
    var next: [String: UInt64] = [:]
    // Eight batches, each appending a few entries to the logs in a shuffled order, with
    // gaps between sequences so "the n-th entry" and "sequence n" differ.
    for _ in 0..<8 {
        var batch: [StorageOperation] = []
        var appendsPerLog: [String: Int] = [:]
        for name in names { appendsPerLog[name] = Int.random(in: 0...6, using: &random) }
        var pending = names.flatMap { name in Array(repeating: name, count: appendsPerLog[name] ?? 0) }
        pending.shuffle(using: &random)
        for name in pending {
            let sequence = (next[name] ?? 0) + UInt64.random(in: 1...5, using: &random)
            next[name] = sequence
            let value = random.bytes(Int.random(in: 0...24, using: &random))
            batch.append(.append(updates, key: name, sequence: sequence, value: value))
            model[name, default: []].append(StorageLogEntry(sequence: sequence, value: value))
        }
        try adapter.commit(batch)
    }
    // A log whose sequences are far apart and large (still below 2^63, the limit of
    // SQLite's integers and of any adapter built on a signed 64-bit column).
    let wide: [UInt64] = [3, 1 << 32, (1 << 40) + 7, 1 << 62]
    try adapter.commit(wide.map { .append(updates, key: "log-wide", sequence: $0, value: [UInt8($0 % 251)]) })
    model["log-wide"] = wide.map { StorageLogEntry(sequence: $0, value: [UInt8($0 % 251)]) }

    for (name, entries) in model {
        try requireLog(adapter, updates, name, entries)
        // Every `after:` boundary: exactly on a sequence, between, before the first,
        // at and past the last; with limits 0, 1, 2, "the rest" and more than the rest.
        var afters: Set<UInt64> = [0, UInt64.max]
        for entry in entries {
            afters.insert(entry.sequence)
            afters.insert(entry.sequence - 1)
            afters.insert(entry.sequence + 1)
        }
        for after in afters.sorted() {
            let tail = entries.filter { $0.sequence > after }
            for limit in Set([0, 1, 2, tail.count, tail.count + 1, Int.max]) {
                let actual = try adapter.readLog(updates, key: name, after: after, limit: limit)
                let expected = Array(tail.prefix(limit))
                try require(actual == expected, """
                    readLog(\(updates), \(name), after: \(after), limit: \(limit)) gave \(describe(actual)), \
                    expected \(describe(expected))
                    """)
            }
        }
    }
    let expectedLogKeys = byteOrdered(model.filter { !$0.value.isEmpty }.keys)
    try requireKeys(try adapter.logKeys(in: updates), expectedLogKeys, "logKeys(in: \(updates))")
    try requireLog(adapter, updates, "log-never-written", [])
}

/// The writer chooses sequences; an adapter must refuse one that is not after the
/// log's last, or a replayed or duplicated update would be stored twice.
func checkLogSequenceEnforced(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    try adapter.commit([
        .append(updates, key: "log", sequence: 10, value: [1]),
        .append(updates, key: "log", sequence: 20, value: [2]),
    ])
    try requireThrows("appending sequence 20 after 20") {
        try adapter.commit([.append(updates, key: "log", sequence: 20, value: [9])])
    }
    try requireThrows("appending sequence 15 after 20") {
        try adapter.commit([.append(updates, key: "log", sequence: 15, value: [9])])
    }
    try requireThrows("appending sequence 5 twice in one batch") {
        try adapter.commit([
            .append(updates, key: "other", sequence: 5, value: [9]),
            .append(updates, key: "other", sequence: 5, value: [9]),
        ])
    }
    try requireThrows("appending sequence 0, which readLog(after: 0) could never return") {
        try adapter.commit([.append(updates, key: "zero", sequence: 0, value: [9])])
    }
    try requireThrows("appending sequence 2^63, beyond the valid range") {
        try adapter.commit([.append(updates, key: "huge", sequence: UInt64(Int64.max) + 1, value: [9])])
    }
    try requireLog(adapter, updates, "log", [.init(sequence: 10, value: [1]), .init(sequence: 20, value: [2])],
                   "after rejected appends")
    try adapter.commit([.append(updates, key: "log", sequence: 21, value: [3])])
    try requireLog(adapter, updates, "log", [
        .init(sequence: 10, value: [1]), .init(sequence: 20, value: [2]), .init(sequence: 21, value: [3]),
    ])
}

/// `truncateLog` drops a prefix (a compacted log keeps only what came after the
/// snapshot); `deleteLog` drops everything; an emptied log is not listed.
func checkLogTruncation(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    let entries = [2, 4, 6, 8, 10].map { StorageLogEntry(sequence: UInt64($0), value: [UInt8($0)]) }
    let append = { (key: String) in entries.map { StorageOperation.append(updates, key: key, sequence: $0.sequence, value: $0.value) } }
    try adapter.commit(append("t") + append("u") + append("d"))

    try adapter.commit([.truncateLog(updates, key: "t", through: 0)])
    try requireLog(adapter, updates, "t", entries, "after truncateLog(through: 0)")
    try adapter.commit([.truncateLog(updates, key: "t", through: 4)])
    try requireLog(adapter, updates, "t", Array(entries.dropFirst(2)), "after truncateLog(through: 4), a sequence in the log")
    try adapter.commit([.truncateLog(updates, key: "t", through: 7)])
    try requireLog(adapter, updates, "t", Array(entries.dropFirst(3)), "after truncateLog(through: 7), between sequences")
    try requireLog(adapter, updates, "u", entries, "after truncating another log")
    // Truncating keeps the last sequence's promise: nothing at or below 10 may follow.
    try requireThrows("appending sequence 9 after truncating to [10]") {
        try adapter.commit([.append(updates, key: "t", sequence: 9, value: [])])
    }
    try adapter.commit([.truncateLog(updates, key: "t", through: 8), .append(updates, key: "t", sequence: 11, value: [11])])
    try requireLog(adapter, updates, "t", [entries[4], .init(sequence: 11, value: [11])], "after appending to a truncated log")

    try adapter.commit([.truncateLog(updates, key: "u", through: UInt64.max)])
    try requireLog(adapter, updates, "u", [], "after truncateLog(through: UInt64.max)")
    try requireKeys(try adapter.logKeys(in: updates), ["d", "t"], "logKeys(in:) after truncating \"u\" to empty")

    try adapter.commit([.deleteLog(updates, key: "d")])
    try requireLog(adapter, updates, "d", [], "after deleteLog")
    try requireKeys(try adapter.logKeys(in: updates), ["t"], "logKeys(in:) after deleteLog(\"d\")")
    // A deleted log is gone: it starts again from any sequence.
    try adapter.commit([.append(updates, key: "d", sequence: 1, value: [1])])
    try requireLog(adapter, updates, "d", [.init(sequence: 1, value: [1])], "after appending to a deleted log")
}
