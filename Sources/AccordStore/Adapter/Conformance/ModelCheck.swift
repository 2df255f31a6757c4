// A model-based check: seeded random batches against a plain reference model, with
// the adapter's whole state compared after every commit. It finds combinations the
// targeted checks do not spell out (a truncate after a delete in another category...).

private let categories = [StorageCategory("conformance.model.x"), StorageCategory("conformance.model.y")]
private let keyPool = ["a", "b", "c", "ab", "b/a", "k\u{0}"]
private let modelSeed: UInt64 = 0x5EED_0F_ACC0_4D
private let batchCount = 150

/// The protocol's semantics in their simplest form. Names are compared as UTF-8 bytes,
/// as the protocol says, not with Swift's canonical-equivalence `==`.
private struct ReferenceModel {
    struct Name: Hashable {
        var category: [UInt8]
        var key: [UInt8]
        init(_ category: StorageCategory, _ key: String) {
            self.category = Array(category.rawValue.utf8)
            self.key = Array(key.utf8)
        }
    }

    var records: [Name: [UInt8]] = [:]
    var logs: [Name: [StorageLogEntry]] = [:]

    /// Applies `batch` whole and returns true, or changes nothing and returns false
    /// when an append is not after its log's last sequence.
    mutating func apply(_ batch: [StorageOperation]) -> Bool {
        var next = self
        for operation in batch {
            switch operation {
            case .put(let category, let key, let value):
                next.records[Name(category, key)] = value
            case .delete(let category, let key):
                next.records[Name(category, key)] = nil
            case .append(let category, let key, let sequence, let value):
                let name = Name(category, key)
                if let last = next.logs[name]?.last, last.sequence >= sequence { return false }
                next.logs[name, default: []].append(StorageLogEntry(sequence: sequence, value: value))
            case .truncateLog(let category, let key, let through):
                let name = Name(category, key)
                let kept = next.logs[name]?.filter { $0.sequence > through } ?? []
                next.logs[name] = kept.isEmpty ? nil : kept
            case .deleteLog(let category, let key):
                next.logs[Name(category, key)] = nil
            }
        }
        self = next
        return true
    }

    func lastSequence(_ category: StorageCategory, _ key: String) -> UInt64 {
        logs[Name(category, key)]?.last?.sequence ?? 0
    }
}

func checkRandomizedModel(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    var random = ConformanceRandom(seed: modelSeed)
    var model = ReferenceModel()
    for index in 0..<batchCount {
        let batch = randomBatch(&random, model)
        let position = "batch \(index + 1) of \(batchCount), seed \(modelSeed)"
        var rejection: (any Error)?
        do { try adapter.commit(batch) } catch { rejection = error }
        let expected = model.apply(batch)
        try require((rejection == nil) == expected, """
            commit \(rejection.map { "rejected (\($0))" } ?? "accepted") \(position), which the model \
            \(expected ? "accepts" : "rejects"): \(batch)
            """)
        try requireSameState(adapter, model, &random, position)
    }
}

private func randomBatch(_ random: inout ConformanceRandom, _ model: ReferenceModel) -> [StorageOperation] {
    var batch: [StorageOperation] = []
    // Sequences appended earlier in this batch, so most appends stay valid.
    var planned: [ReferenceModel.Name: UInt64] = [:]
    for _ in 0..<Int.random(in: 1...6, using: &random) {
        let category = categories[Int.random(in: 0..<categories.count, using: &random)]
        let key = keyPool[Int.random(in: 0..<keyPool.count, using: &random)]
        let name = ReferenceModel.Name(category, key)
        let last = planned[name] ?? model.lastSequence(category, key)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<35:
            batch.append(.put(category, key: key, value: random.bytes(Int.random(in: 0...12, using: &random))))
        case 35..<50:
            batch.append(.delete(category, key: key))
        case 50..<78:
            let sequence = last + UInt64.random(in: 1...3, using: &random)
            planned[name] = sequence
            batch.append(.append(category, key: key, sequence: sequence, value: random.bytes(Int.random(in: 0...8, using: &random))))
        case 78..<81 where last > 0:
            // Stale on purpose: the whole batch must fail. (Never sequence 0, which
            // `readLog(after: 0)` could not return.)
            batch.append(.append(category, key: key, sequence: last, value: [0xEE]))
        case 81..<94:
            batch.append(.truncateLog(category, key: key, through: last > 0 ? UInt64.random(in: 0...last, using: &random) : 0))
        default:
            batch.append(.deleteLog(category, key: key))
            planned[name] = 0
        }
    }
    return batch
}

private func requireSameState(
    _ adapter: any StorageAdapter, _ model: ReferenceModel, _ random: inout ConformanceRandom, _ position: String
) throws {
    for category in categories {
        let recordKeys = keyPool.filter { model.records[.init(category, $0)] != nil }
        try requireKeys(try adapter.keys(in: category), byteOrdered(recordKeys), "keys(in: \(category)) after \(position)")
        let logKeys = keyPool.filter { model.logs[.init(category, $0)] != nil }
        try requireKeys(try adapter.logKeys(in: category), byteOrdered(logKeys), "logKeys(in: \(category)) after \(position)")
        for key in keyPool {
            let name = ReferenceModel.Name(category, key)
            try requireRecord(adapter, category, key, model.records[name], "after \(position)")
            let entries = model.logs[name] ?? []
            try requireLog(adapter, category, key, entries, "after \(position)")
            let after = UInt64.random(in: 0...(entries.last?.sequence ?? 0) + 1, using: &random)
            let limit = Int.random(in: 0...4, using: &random)
            let expected = Array(entries.filter { $0.sequence > after }.prefix(limit))
            let actual = try adapter.readLog(category, key: key, after: after, limit: limit)
            try require(actual == expected, """
                readLog(\(category), \(describe(key: key)), after: \(after), limit: \(limit)) gave \
                \(describe(actual)), expected \(describe(expected)) after \(position)
                """)
        }
    }
}
