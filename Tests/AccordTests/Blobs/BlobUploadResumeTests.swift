import Foundation
import Testing
import Accord
import AccordServer
import AccordTesting

/// An upload killed at random points (SIGKILL of the client process) resumes from the
/// offset the server holds and completes byte-identical.
@Suite(.timeLimit(.minutes(5))) struct BlobUploadResumeTests {
    @Test func anUploadKilledMidwayResumesFromTheServersOffset() async throws {
        let directory = try TemporaryDirectory(prefix: "accord-blob-resume")
        let tokens = try TokenAuthority(secret: Array("accord-blob-resume-test-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        configuration.maxBlobBytes = 200 << 20
        configuration.blobQuotaPerUser = nil
        let server = try AccordServer(
            configuration: configuration, documents: try DocumentStore(path: directory.file("server.sqlite")), tokens: tokens)
        let token = tokens.mint(subject: "alice", ttl: 3600)
        let uploader = try #require(BuiltProduct.url(named: "accord-blob-uploader"), "accord-blob-uploader is not built")

        let size = 64 << 20
        let source = directory.file("big.bin")
        var random = SplitMix64(seed: UInt64(Date().timeIntervalSince1970))
        FileManager.default.createFile(atPath: source, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
        for _ in 0..<(size >> 20) {
            var piece = [UInt8](repeating: 0, count: 1 << 20)
            piece.withUnsafeMutableBytes { raw in
                for index in raw.bindMemory(to: UInt64.self).indices { raw.bindMemory(to: UInt64.self)[index] = random.next() }
            }
            handle.write(Data(piece))
        }
        try handle.close()
        let arguments = [directory.file("client.sqlite"), "ws://127.0.0.1:\(server.port)", token, "big", source]

        var killedMidway = 0
        var lastOffset: Int64 = 0
        var hash: String?
        for round in 0..<3 {
            let threshold = Int64.random(in: (4 << 20)...(48 << 20), using: &random)
            let output = try run(uploader, arguments, killWhenProgressReaches: threshold)
            if hash == nil { hash = output.split(separator: "\n").first { $0.hasPrefix("queued ") }.map { String($0.dropFirst(7)) } }
            if output.contains("uploaded ") { break }
            let blobHash = try #require(hash, "round \(round): nothing queued; output: \(output.suffix(300))")
            let head = try curl(port: server.port, "HEAD", "/v1/documents/big/blobs/\(blobHash)", token: token)
            #expect(head.status == 404, "round \(round)")
            let offset = Int64(head.headers["accord-upload-offset"] ?? "") ?? -1
            #expect(offset >= lastOffset && offset < Int64(size), "round \(round): server holds \(offset)")
            lastOffset = max(lastOffset, offset)
            killedMidway += 1
        }
        #expect(killedMidway >= 1, "every run finished before it could be killed")

        // The last run goes to the end, starting where the server's copy ends.
        let output = try run(uploader, arguments, killWhenProgressReaches: nil)
        let blobHash = try #require(hash)
        #expect(output.contains("uploaded \(blobHash)") || killedMidway == 0, "final run: \(output.suffix(300))")
        if killedMidway > 0, lastOffset > 0 {
            let firstProgress = output.split(separator: "\n").first { $0.hasPrefix("progress ") }
                .flatMap { Int64($0.split(separator: " ")[1]) }
            #expect((firstProgress ?? 0) > lastOffset, "the resumed upload started over: \(firstProgress ?? -1) vs \(lastOffset)")
        }
        let copy = directory.file("copy.bin")
        let get = try curl(port: server.port, "GET", "/v1/documents/big/blobs/\(blobHash)", token: token, output: copy)
        #expect(get.status == 200)
        #expect(FileManager.default.contentsEqual(atPath: source, andPath: copy))
        try await server.stop()
    }

    /// Runs the uploader; SIGKILLs it once it reports `threshold` bytes sent (nil: lets
    /// it finish, 120 s at most). Returns what it printed.
    private func run(_ executable: URL, _ arguments: [String], killWhenProgressReaches threshold: Int64?) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let collected = Collected()
        pipe.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning, Date() < deadline {
            if let threshold, collected.maxProgress >= threshold {
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(1_000)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        collected.append(pipe.fileHandleForReading.readDataToEndOfFile())
        return collected.text
    }

    private final class Collected: @unchecked Sendable {
        // Invariant behind @unchecked Sendable: `bytes` is touched under `lock`.
        private let lock = NSLock()
        private var bytes = Data()
        func append(_ data: Data) { lock.withLock { bytes.append(data) } }
        var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
        var maxProgress: Int64 {
            text.split(separator: "\n").filter { $0.hasPrefix("progress ") }
                .compactMap { Int64($0.split(separator: " ")[1]) }.max() ?? 0
        }
    }

    private struct CurlResult {
        var status: Int
        var headers: [String: String]
    }

    private func curl(port: Int, _ method: String, _ path: String, token: String, output: String? = nil) throws -> CurlResult {
        let directory = try TemporaryDirectory()
        let headerFile = directory.file("headers")
        var arguments = method == "HEAD" ? ["-s", "-I"] : ["-s", "-X", method]
        arguments += ["-D", headerFile, "-o", output ?? directory.file("body"), "--max-time", "120"]
        arguments += ["-H", "Authorization: Bearer \(token)", "http://127.0.0.1:\(port)\(path)"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        var lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let status = lines.isEmpty ? 0 : Int(lines.removeFirst().split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return CurlResult(status: status, headers: headers)
    }
}
