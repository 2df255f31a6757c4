import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing

@testable import AccordServer

/// A 100 MB blob up and down through `accord serve` (a separate process, so its memory
/// is its own) with curl: the server's peak resident set grows by less than 32 MB over
/// what it had after a small warm-up transfer, and the download is byte-identical.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct BlobMemoryTests {
    /// A `/proc/<pid>/status` field in KiB.
    static func status(_ pid: Int32, _ field: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let value = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw TestFailure("no \(field) in /proc/\(pid)/status") }
        return value
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")))
    func aHundredMegabyteBlobTravelsWithBoundedServerMemory() async throws {
        let data = try TemporaryDirectory()
        let files = try TemporaryDirectory()
        let serve = try ServeProcess(dataDirectory: data.path)
        let pid = serve.process.processIdentifier
        let token = serve.token
        #expect(try BlobHTTP.curl(
            port: serve.port, "POST", "/v1/documents", token: token, headers: ["Content-Type: application/json"],
            data: Array(#"{"id":"big"}"#.utf8)).status == 201)

        // Warm up every path once (upload, verify, download), so lazily loaded code and
        // buffers are in the baseline.
        let warm = BlobHTTP.randomBytes(2 << 20, seed: 41)
        let warmHash = try BlobHTTP.sha256(warm)
        #expect(try BlobHTTP.curl(port: serve.port, "PUT", BlobHTTP.blobPath("big", warmHash), token: token, data: warm).status == 201)
        #expect(try BlobHTTP.curl(port: serve.port, "GET", BlobHTTP.blobPath("big", warmHash), token: token).body == warm)
        let baseline = try Self.status(pid, "VmRSS")

        let source = files.path + "/100MB.bin"
        FileManager.default.createFile(atPath: source, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: source))
        for piece in 0..<100 { try handle.write(contentsOf: Data(BlobHTTP.randomBytes(1 << 20, seed: 1000 + UInt64(piece)))) }
        try handle.close()
        let hash = try BlobHTTP.sha256(file: source)

        let put = try BlobHTTP.curl(
            port: serve.port, "PUT", BlobHTTP.blobPath("big", hash), token: token, headers: ["Content-Type: video/mp4"],
            upload: source)
        #expect(put.status == 201, "\(put.text)")
        let afterUpload = try Self.status(pid, "VmHWM")
        let downloaded = files.path + "/down.bin"
        let get = try BlobHTTP.curl(port: serve.port, "GET", BlobHTTP.blobPath("big", hash), token: token, output: downloaded)
        #expect(get.status == 200)
        let peak = try Self.status(pid, "VmHWM")
        #expect(try BlobHTTP.sha256(file: downloaded) == hash)
        let growth = peak - baseline
        print("blob memory: baseline RSS \(baseline) KiB, peak after upload \(afterUpload) KiB, after download \(peak) KiB, growth \(growth) KiB")
        #expect(growth < 32 * 1024, "server peak RSS grew by \(growth) KiB")
        #expect(serve.terminate() == 0)
    }
}
