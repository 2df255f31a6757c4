import Foundation

/// A sequential editing trace from `shared/traces` (format in its README): the
/// transactions to replay and the text they must produce.
struct EditingTrace {
    /// The file name without `.json.gz`, as bench_reference.py names traces.
    var name: String
    var endContent: String
    /// Patches per transaction, positions already in UTF-16 units.
    var transactions: [[TracePatch]]

    var patchCount: Int { transactions.reduce(0) { $0 + $1.count } }

    /// Reads a `.json.gz` (or plain `.json`) trace.
    static func load(path: String) throws(BenchFailure) -> EditingTrace {
        let json = path.hasSuffix(".gz") ? try gunzip(path) : try readFile(path)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: json)
        } catch {
            throw BenchFailure("\(path): not JSON (\(error.localizedDescription))")
        }
        guard let root = object as? [String: Any], let txns = root["txns"] as? [Any],
              let endContent = root["endContent"] as? String else {
            throw BenchFailure("\(path): not an editing trace (needs txns and endContent)")
        }
        guard root["kind"] as? String != "concurrent" else {
            throw BenchFailure("\(path): concurrent traces are not supported; use a sequential one")
        }
        guard (root["startContent"] as? String ?? "").isEmpty else {
            throw BenchFailure("\(path): a non-empty startContent is not supported")
        }
        var codePointTxns: [[TracePatch]] = []
        codePointTxns.reserveCapacity(txns.count)
        for (i, txn) in txns.enumerated() {
            guard let patches = (txn as? [String: Any])?["patches"] as? [Any] else {
                throw BenchFailure("\(path): transaction \(i) has no patches")
            }
            var out: [TracePatch] = []
            out.reserveCapacity(patches.count)
            for patch in patches {
                guard let triple = patch as? [Any], triple.count == 3, let pos = integer(triple[0]),
                      let del = integer(triple[1]), let ins = triple[2] as? String, pos >= 0, del >= 0 else {
                    throw BenchFailure("\(path): transaction \(i) has a patch that is not [pos, delCount, insText]")
                }
                out.append(TracePatch(position: pos, deleteCount: del, insert: ins))
            }
            codePointTxns.append(out)
        }
        let file = URL(fileURLWithPath: path).lastPathComponent
        let name = file.hasSuffix(".json.gz") ? String(file.dropLast(8)) : file.hasSuffix(".json") ? String(file.dropLast(5)) : file
        return EditingTrace(name: name, endContent: endContent, transactions: utf16Positions(codePointTxns))
    }

    private static func integer(_ any: Any) -> Int? {
        if let i = any as? Int { return i }
        return (any as? NSNumber)?.intValue
    }

    private static func readFile(_ path: String) throws(BenchFailure) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw BenchFailure("\(path): cannot read (\(error.localizedDescription))")
        }
    }

    /// Foundation on Linux has no gzip decoder, and the package takes no outside
    /// dependencies, so the system's `gzip -dc` does it (bench.sh needs it anyway).
    private static func gunzip(_ path: String) throws(BenchFailure) -> Data {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw BenchFailure("\(path): no such file or not readable")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc", "--", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            throw BenchFailure("cannot run gzip: \(error.localizedDescription)")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchFailure("\(path): gzip -dc failed with status \(process.terminationStatus)")
        }
        return data
    }
}
