import Foundation

/// Large test files written and compared in 1 MiB pieces, so they never sit in memory.
public enum FileComparison {
    /// Writes `size` bytes of distinct pieces: `block` with each piece's number stamped
    /// in its first eight bytes, one piece at a time.
    public static func writeStamped(_ path: String, size: Int, block: [UInt8]) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var block = block
        var written = 0
        var piece: UInt64 = 0
        while written < size {
            withUnsafeBytes(of: piece.littleEndian) { stamp in
                for (offset, byte) in stamp.enumerated() { block[offset] = byte }
            }
            let count = min(block.count, size - written)
            try handle.write(contentsOf: block[0..<count])
            written += count
            piece += 1
        }
    }

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
