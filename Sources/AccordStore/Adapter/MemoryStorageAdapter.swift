import AccordCRDT

/// A ``StorageAdapter`` that keeps everything in memory: for tests, previews and
/// documents that should never touch the disk. Nothing survives the process.
public final class MemoryStorageAdapter: StorageAdapter {
    /// Names are kept as UTF-8 bytes: the protocol compares names byte for byte, while
    /// String's `==` and hashing treat canonically equivalent strings ("\u{E9}" and
    /// "e\u{301}") as one, which merged two records (found by the conformance suite).
    private struct Name: Hashable {
        var category: [UInt8]
        var key: [UInt8]

        init(category: StorageCategory, key: String) {
            self.category = Array(category.rawValue.utf8)
            self.key = Array(key.utf8)
        }
    }

    private var records: [Name: [UInt8]] = [:]
    private var logs: [Name: [StorageLogEntry]] = [:]

    public init() {}

    public func read(_ category: StorageCategory, key: String) throws -> [UInt8]? {
        records[Name(category: category, key: key)]
    }

    public func keys(in category: StorageCategory) throws -> [String] {
        sortedKeys(records.keys, in: category)
    }

    public func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        guard let log = logs[Name(category: category, key: key)] else { return [] }
        let start = firstIndex(in: log, after: after)
        let end = limit >= log.count - start ? log.count : start + max(0, limit)
        return Array(log[start..<end])
    }

    public func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64? {
        logs[Name(category: category, key: key)]?.last?.sequence
    }

    public func logKeys(in category: StorageCategory) throws -> [String] {
        sortedKeys(logs.keys, in: category)
    }

    public func commit(_ batch: [StorageOperation]) throws {
        // Apply to copies so a rejected operation leaves nothing half done.
        var newRecords = records
        var newLogs = logs
        for operation in batch {
            switch operation {
            case .put(let category, let key, let value):
                newRecords[Name(category: category, key: key)] = value
            case .delete(let category, let key):
                newRecords[Name(category: category, key: key)] = nil
            case .append(let category, let key, let sequence, let value):
                let name = Name(category: category, key: key)
                guard StorageLogEntry.validSequences.contains(sequence) else {
                    throw AccordError(.invalidArgument, "log sequence \(sequence) is outside 1...2^63-1")
                }
                if let last = newLogs[name]?.last, last.sequence >= sequence {
                    throw AccordError(
                        .invalidArgument, "log sequence \(sequence) is not after \(last.sequence)",
                        details: ["category": category.rawValue, "key": key])
                }
                newLogs[name, default: []].append(StorageLogEntry(sequence: sequence, value: value))
            case .truncateLog(let category, let key, let through):
                let name = Name(category: category, key: key)
                guard let log = newLogs[name] else { continue }
                let kept = Array(log[firstIndex(in: log, after: through)...])
                newLogs[name] = kept.isEmpty ? nil : kept
            case .deleteLog(let category, let key):
                newLogs[Name(category: category, key: key)] = nil
            }
        }
        records = newRecords
        logs = newLogs
    }

    public func wipeAll() throws {
        records = [:]
        logs = [:]
    }

    /// The index of the first entry with a sequence greater than `after` (binary search).
    private func firstIndex(in log: [StorageLogEntry], after: UInt64) -> Int {
        var low = 0
        var high = log.count
        while low < high {
            let mid = (low + high) / 2
            if log[mid].sequence <= after { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private func sortedKeys(_ names: some Sequence<Name>, in category: StorageCategory) -> [String] {
        let category = Array(category.rawValue.utf8)
        // Valid UTF-8 decodes back to the very bytes it came from.
        return names.filter { $0.category == category }.map(\.key)
            .sorted { $0.lexicographicallyPrecedes($1) }
            .map { String(decoding: $0, as: UTF8.self) }
    }
}
