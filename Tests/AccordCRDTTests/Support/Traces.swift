import Foundation

/// A sequential editing trace from `shared/traces` (see its README).
struct EditingTrace {
    struct Patch { var position: Int; var deleteCount: Int; var insert: String }
    var transactions: [[Patch]]
    var endContent: String

    static func load(_ name: String) throws -> EditingTrace {
        let url = SharedFixtures.url("traces/\(name)")
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-dc", url.path]
        let pipe = Pipe()
        gzip.standardOutput = pipe
        try gzip.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let txns = (json["txns"] as! [[String: Any]]).map { txn in
            (txn["patches"] as! [[Any]]).map { p in
                Patch(position: p[0] as! Int, deleteCount: p[1] as! Int, insert: p[2] as! String)
            }
        }
        return EditingTrace(transactions: txns, endContent: json["endContent"] as! String)
    }
}
