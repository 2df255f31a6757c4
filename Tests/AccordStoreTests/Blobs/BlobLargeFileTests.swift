import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// A 100 MB blob through SQLite, from a file and back to a file, with memory bounded
/// by the batch size rather than the blob size.
@Suite struct BlobLargeFileTests {
    static let size = 100 * 1_000_000

    @Test func hundredMegabytesStreamWithBoundedMemory() throws {
        let directory = try TemporaryDirectory()
        let source = directory.file("big.in")
        try Self.writeInput(source, size: Self.size)
        let store = try BlobStore(storage: SerialStorage(path: directory.file("store.sqlite")))

        PeakMemory.reset()
        let before = PeakMemory.peakBytes()
        let info = try store.put(contentsOfFile: source, contentType: "application/octet-stream")
        let destination = directory.file("big.out")
        try store.export(info.hash, toFile: destination)
        let growth = PeakMemory.peakBytes().map { peak in peak - (before ?? peak) }

        #expect(info.size == Int64(Self.size))
        if let expected = try Self.sha256sum(source) { #expect(info.hash.hex == expected) }
        #expect(try FileComparison.equal(source, destination))
        #if os(Linux)
        // The blob is 100 MB; one batch is 8 MiB. Allow generous room for SQLite's cache,
        // the allocator and tests running beside this one, far below the blob's size.
        let limit = 40 * 1_000_000
        #expect(growth != nil)
        #expect((growth ?? .max) < limit, "peak RSS grew by \(growth ?? -1) bytes")
        #endif
    }

    /// Writes `size` bytes of distinct 1 MiB pieces (a random block with the piece number
    /// stamped in), one piece at a time.
    static func writeInput(_ path: String, size: Int) throws {
        try FileComparison.writeStamped(path, size: size, block: BlobFixtures.randomBytes(1 << 20, seed: 42))
    }


    /// The digest from the system's `sha256sum`, an oracle independent of libsodium;
    /// nil where the tool is missing.
    static func sha256sum(_ path: String) throws -> String? {
        let tool = ["/usr/bin/sha256sum", "/bin/sha256sum"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let tool else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init)
    }
}

/// The process's peak resident memory (Linux: `VmHWM`, reset through `clear_refs`).
enum PeakMemory {
    /// Resets the peak to the current resident size (writing 5 to
    /// `/proc/self/clear_refs`, Linux 4.0+), so a measurement sees only what follows.
    static func reset() {
        #if os(Linux)
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        #endif
    }

    static func peakBytes() -> Int? {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kilobytes = Int(parts[1]) { return kilobytes * 1024 }
        }
        return nil
        #else
        return nil
        #endif
    }
}
