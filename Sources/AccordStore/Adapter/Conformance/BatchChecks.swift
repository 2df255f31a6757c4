import Foundation
// Checks of whole batches and of the whole storage: atomicity, order within a batch,
// wipeAll, and persistence across a reopen.

private let records = StorageCategory("conformance.records")
private let logs = StorageCategory("conformance.logs")
private let blobs = StorageCategory("conformance.blobs")

/// A document store writes a snapshot, truncates the log and updates an index in one
/// batch; applying part of it loses data. The last operation of each batch is invalid
/// (a stale sequence), so an adapter that applies operation by operation keeps the rest.
func checkAtomicBatches(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    try adapter.commit([
        .put(records, key: "kept", value: [1]),
        .put(records, key: "doomed", value: [2]),
        .append(logs, key: "log", sequence: 5, value: [5]),
        .append(logs, key: "log", sequence: 6, value: [6]),
    ])
    let failing: [[StorageOperation]] = [
        [
            .put(records, key: "kept", value: [9, 9]),
            .put(records, key: "new", value: [9]),
            .delete(records, key: "doomed"),
            .append(logs, key: "log", sequence: 7, value: [7]),
            .truncateLog(logs, key: "log", through: 5),
            .append(logs, key: "fresh", sequence: 1, value: [1]),
            .append(logs, key: "log", sequence: 3, value: [3]),  // invalid: 3 is not after 7
        ],
        [
            .deleteLog(logs, key: "log"),
            .put(blobs, key: "chunk", value: [1]),
            .append(logs, key: "fresh", sequence: 2, value: [2]),
            .append(logs, key: "fresh", sequence: 2, value: [2]),  // invalid: repeats 2
        ],
        [
            .append(logs, key: "log", sequence: 6, value: [6]),  // invalid first: 6 is not after 6
            .put(records, key: "new", value: [9]),
        ],
    ]
    for (index, batch) in failing.enumerated() {
        try requireThrows("batch \(index + 1) with a stale log sequence") { try adapter.commit(batch) }
        let context = "after rejected batch \(index + 1) of \(failing.count)"
        try requireRecord(adapter, records, "kept", [1], context)
        try requireRecord(adapter, records, "doomed", [2], context)
        try requireRecord(adapter, records, "new", nil, context)
        try requireRecord(adapter, blobs, "chunk", nil, context)
        try requireLog(adapter, logs, "log", [.init(sequence: 5, value: [5]), .init(sequence: 6, value: [6])], context)
        try requireLog(adapter, logs, "fresh", [], context)
        try requireKeys(try adapter.keys(in: records), ["doomed", "kept"], "keys(in: \(records)) \(context)")
        try requireKeys(try adapter.logKeys(in: logs), ["log"], "logKeys(in: \(logs)) \(context)")
    }
    // A rejected batch must not leave the adapter stuck (an open transaction, a lock).
    try adapter.commit([.put(records, key: "new", value: [3]), .append(logs, key: "log", sequence: 7, value: [7])])
    try requireRecord(adapter, records, "new", [3], "a valid batch after rejected ones")
    try requireLog(adapter, logs, "log", [5, 6, 7].map { StorageLogEntry(sequence: $0, value: [UInt8($0)]) },
                   "a valid batch after rejected ones")
}

/// Operations apply in the order given: an adapter that groups puts before deletes,
/// or sorts the batch, reverses the outcome.
func checkBatchOrder(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    try adapter.commit([.put(records, key: "put-delete", value: [1]), .delete(records, key: "put-delete")])
    try requireRecord(adapter, records, "put-delete", nil, "put then delete in one batch")
    try adapter.commit([.put(records, key: "delete-put", value: [1])])
    try adapter.commit([.delete(records, key: "delete-put"), .put(records, key: "delete-put", value: [2])])
    try requireRecord(adapter, records, "delete-put", [2], "delete then put in one batch")
    try adapter.commit([
        .put(records, key: "three", value: [1]), .put(records, key: "three", value: [2]),
        .put(records, key: "three", value: [3]),
    ])
    try requireRecord(adapter, records, "three", [3], "three puts in one batch")

    try adapter.commit([
        .append(logs, key: "log", sequence: 1, value: [1]), .append(logs, key: "log", sequence: 2, value: [2]),
        .truncateLog(logs, key: "log", through: 1), .append(logs, key: "log", sequence: 3, value: [3]),
    ])
    try requireLog(adapter, logs, "log", [.init(sequence: 2, value: [2]), .init(sequence: 3, value: [3])],
                   "append, truncate, append in one batch")
    try adapter.commit([.deleteLog(logs, key: "log"), .append(logs, key: "log", sequence: 1, value: [9])])
    try requireLog(adapter, logs, "log", [.init(sequence: 1, value: [9])], "deleteLog then append in one batch")
    try adapter.commit([.append(logs, key: "gone", sequence: 4, value: [4]), .deleteLog(logs, key: "gone")])
    try requireLog(adapter, logs, "gone", [], "append then deleteLog in one batch")
}

/// Logout wipes the device: every record and every log of every category, and the
/// blob files in the adapter's blob directory when it offers one.
func checkWipeAll(_ context: ConformanceContext) throws {
    let adapter = try context.makeAdapter()
    try fillForWipe(adapter)
    let blobFile = try placeBlobFile(adapter)
    try adapter.wipeAll()
    try requireWiped(adapter, "after wipeAll")
    if let blobFile {
        try require(!FileManager.default.fileExists(atPath: blobFile), "wipeAll left the blob file \(blobFile)")
    }
    // The storage is usable afterwards, and logs start over.
    try adapter.commit([.put(records, key: "after", value: [1]), .append(logs, key: "log-0", sequence: 1, value: [1])])
    try requireRecord(adapter, records, "after", [1], "a put after wipeAll")
    try requireLog(adapter, logs, "log-0", [.init(sequence: 1, value: [1])], "an append after wipeAll")
    try adapter.wipeAll()
    try requireWiped(adapter, "after a second wipeAll")
}

/// Persistence: what was committed (and only that) is there after close and reopen,
/// sequences continue, and a wipe stays wiped. The adapter is released first so the
/// storage is really closed (a SQLite connection closes in `deinit`).
func checkReopen(_ context: ConformanceContext) throws {
    try context.requireReopenable()
    // Each phase gets its adapter as an argument, so the adapter is released when the
    // phase returns and the next phase opens storage that is really closed.
    try writeBeforeClosing(try context.makeAdapter())
    try verifyAfterReopening(try context.reopen())
    try requireWiped(try context.reopen(), "after wipeAll and reopening")
}

private func writeBeforeClosing(_ adapter: any StorageAdapter) throws {
    try adapter.commit([
        .put(records, key: "kept", value: [1]), .put(records, key: "overwritten", value: [1]),
        .put(records, key: "deleted", value: [1]), .put(blobs, key: "kept", value: [0, 255]),
        .append(logs, key: "log", sequence: 1, value: [1]), .append(logs, key: "log", sequence: 2, value: [2]),
        .append(logs, key: "log", sequence: 3, value: [3]), .append(logs, key: "dropped", sequence: 1, value: []),
    ])
    try adapter.commit([
        .put(records, key: "overwritten", value: [2]), .delete(records, key: "deleted"),
        .truncateLog(logs, key: "log", through: 1), .deleteLog(logs, key: "dropped"),
    ])
    try requireThrows("a stale append before closing") {
        try adapter.commit([.put(records, key: "rejected", value: [1]), .append(logs, key: "log", sequence: 2, value: [])])
    }
}

private func verifyAfterReopening(_ adapter: any StorageAdapter) throws {
    let context = "after reopening"
    try requireRecord(adapter, records, "kept", [1], context)
    try requireRecord(adapter, records, "overwritten", [2], context)
    try requireRecord(adapter, records, "deleted", nil, context)
    try requireRecord(adapter, records, "rejected", nil, "after reopening (its batch was rejected)")
    try requireRecord(adapter, blobs, "kept", [0, 255], context)
    try requireKeys(try adapter.keys(in: records), ["kept", "overwritten"], "keys(in: \(records)) \(context)")
    try requireLog(adapter, logs, "log", [.init(sequence: 2, value: [2]), .init(sequence: 3, value: [3])], context)
    try requireKeys(try adapter.logKeys(in: logs), ["log"], "logKeys(in: \(logs)) \(context)")
    try requireThrows("appending sequence 3 after reopening a log ending at 3") {
        try adapter.commit([.append(logs, key: "log", sequence: 3, value: [])])
    }
    try fillForWipe(adapter)
    try adapter.wipeAll()
}

// MARK: Shared by the wipe checks

private let wipeCategories = [records, logs, blobs, StorageCategory("conformance.wipe.\u{E9}")]

private func fillForWipe(_ adapter: any StorageAdapter) throws {
    var batch: [StorageOperation] = []
    for category in wipeCategories {
        for index in 0..<5 {
            batch.append(.put(category, key: "record-\(index)", value: [UInt8(index)]))
            batch.append(.append(category, key: "log-\(index)", sequence: 100, value: [UInt8(index)]))
            batch.append(.append(category, key: "log-\(index)", sequence: 101, value: []))
        }
    }
    try adapter.commit(batch)
}

private func requireWiped(_ adapter: any StorageAdapter, _ context: String) throws {
    for category in wipeCategories {
        try requireKeys(try adapter.keys(in: category), [], "keys(in: \(category)) \(context)")
        try requireKeys(try adapter.logKeys(in: category), [], "logKeys(in: \(category)) \(context)")
        for index in 0..<5 {
            try requireRecord(adapter, category, "record-\(index)", nil, context)
            try requireLog(adapter, category, "log-\(index)", [], context)
        }
    }
}

/// Writes a file named like blob content into the adapter's blob directory (creating
/// it), or nothing when the adapter offers none. Returns the file's path.
private func placeBlobFile(_ adapter: any StorageAdapter) throws -> String? {
    guard let directory = adapter.blobDirectory else { return nil }
    try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
    let path = "\(directory.path)/\(String(repeating: "0", count: 64))"
    try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
    return path
}
