import Foundation
import AccordCRDT

/// A sequential editing trace from `shared/traces` (see its README).
public struct EditingTrace: Sendable {
    public struct Patch: Sendable {
        public var position: Int
        public var deleteCount: Int
        public var insert: String
    }

    public var transactions: [[Patch]]
    public var endContent: String

    /// Reads `shared/traces/<name>` (gzipped JSON) through `gzip -dc`.
    public static func load(_ name: String) throws -> EditingTrace {
        let url = SharedDirectory.file("traces/\(name)")
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-dc", url.path]
        let pipe = Pipe()
        gzip.standardOutput = pipe
        try gzip.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        guard gzip.terminationStatus == 0, let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let txns = json["txns"] as? [[String: Any]], let end = json["endContent"] as? String
        else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path]) }
        let transactions = try txns.map { txn in
            guard let patches = txn["patches"] as? [[Any]] else { throw CocoaError(.fileReadCorruptFile) }
            return try patches.map { p in
                guard p.count == 3, let position = p[0] as? Int, let count = p[1] as? Int, let insert = p[2] as? String
                else { throw CocoaError(.fileReadCorruptFile) }
                return Patch(position: position, deleteCount: count, insert: insert)
            }
        }
        return EditingTrace(transactions: transactions, endContent: end)
    }

    /// Replays the trace into the root text "text" of `doc`, one transaction per trace
    /// transaction. Positions are used as UTF-16 offsets, which is exact for the ASCII
    /// traces (automerge-paper).
    public func replay(into doc: Doc) throws {
        let text = try doc.getText("text")
        for txn in transactions {
            try doc.transact {
                for patch in txn {
                    if patch.deleteCount > 0 { try text.delete(patch.position, patch.deleteCount) }
                    if !patch.insert.isEmpty { try text.insert(patch.position, patch.insert) }
                }
            }
        }
    }
}
