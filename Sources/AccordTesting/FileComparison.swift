import Foundation

/// Byte-for-byte file comparison in 1 MiB pieces, so large files never sit in memory.
public enum FileComparison {
    public static func equal(_ a: String, _ b: String) throws -> Bool {
        let first = try FileHandle(forReadingFrom: URL(fileURLWithPath: a))
        let second = try FileHandle(forReadingFrom: URL(fileURLWithPath: b))
        defer {
            try? first.close()
            try? second.close()
        }
        while true {
            let x = try first.read(upToCount: 1 << 20) ?? Data()
            let y = try second.read(upToCount: 1 << 20) ?? Data()
            if x != y { return false }
            if x.isEmpty { return true }
        }
    }
}
