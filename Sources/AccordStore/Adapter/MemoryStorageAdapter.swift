public import AccordCRDT

/// A ``StorageAdapter`` that keeps everything in memory: for tests, previews and
/// documents that should never touch the disk. Nothing survives the process.
public final class MemoryStorageAdapter: StorageAdapter {
    private struct Name: Hashable {
        var category: StorageCategory
        var key: String
    }

    private var records: [Name: [UInt8]] = [:]
    private var logs: [Name: [StorageLogEntry]] = [:]

    public init() {}

    public func read(_ category: StorageCategory, key: String) throws -> [UInt8]? {
        records[Name(category: category, key: key)]
    }

    public func keys(in category: StorageCategory) throws -> [String] {
        sortedKeys(records.keys.filter { $0.category == category })
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
        sortedKeys(logs.keys.filter { $0.category == category })
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

    private func sortedKeys(_ names: some Sequence<Name>) -> [String] {
        names.map(\.key).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}
