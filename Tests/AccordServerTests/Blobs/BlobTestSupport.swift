import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing

@testable import AccordServer

/// HTTP for the blob tests: `curl` for ordinary requests (it streams files both ways,
/// as a client would), and a raw socket for what curl will not do (send only a head,
/// cut a body short).
enum BlobHTTP {
    struct Result {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var errorCode: String? {
            let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            return (json?["error"] as? [String: Any])?["code"] as? String
        }
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }
    }

    static func sha256(_ bytes: [UInt8]) throws -> String {
        var hasher = try SHA256Hasher()
        hasher.update(bytes)
        return hasher.finish().hex
    }

    static func sha256(file path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: output, as: UTF8.self).prefix(64))
    }

    /// Runs curl with `arguments` against `http://127.0.0.1:port` + `path`; the body goes
    /// to `output` when given (else it is returned).
    static func curl(
        port: Int, _ method: String, _ path: String, token: String?, headers: [String] = [], upload: String? = nil,
        data: [UInt8]? = nil, output: String? = nil
    ) throws -> Result {
        let directory = try TemporaryDirectory()
        let headerFile = directory.path + "/headers"
        let bodyFile = output ?? directory.path + "/body"
        var arguments = ["-s", "-X", method, "-D", headerFile, "-o", bodyFile, "--max-time", "120"]
        if method == "HEAD" { arguments = ["-s", "-I", "-D", headerFile, "-o", bodyFile, "--max-time", "60"] }
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        for header in headers { arguments += ["-H", header] }
        if let upload { arguments += ["-T", upload] }
        if let data {
            let dataFile = directory.path + "/data"
            FileManager.default.createFile(atPath: dataFile, contents: Data(data))
            arguments += ["--data-binary", "@" + dataFile]
        }
        arguments.append("http://127.0.0.1:\(port)\(path)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        // The last block (after any 100 Continue).
        let block = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
        var lines = block.components(separatedBy: "\r\n")
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        var parsed: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            parsed[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = output == nil ? Array((FileManager.default.contents(atPath: bodyFile)) ?? Data()) : []
        return Result(status: status, headers: parsed, body: body)
    }

    /// Opens a raw connection, sends `bytes`, and then either reads the response to the
    /// end (`read: true`) or closes at once (a client cut off mid-body).
    static func raw(port: Int, _ bytes: [UInt8], read: Bool = true, timeoutSeconds: Int = 10) throws -> Result {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("cannot connect to \(port)") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { break }
            sent += n
        }
        guard read else { return Result(status: 0, headers: [:], body: []) }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while response.count < 1 << 22 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            response += chunk[..<n]
        }
        let text = String(decoding: response, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        var lines = (parts.first ?? "").components(separatedBy: "\r\n")
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Result(status: status, headers: headers, body: Array(parts.dropFirst().joined(separator: "\r\n\r\n").utf8))
    }

    /// The head of a blob PUT.
    static func putHead(_ path: String, token: String, length: Int64, extra: String = "") -> [UInt8] {
        Array("PUT \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(length)\r\n\(extra)\r\n".utf8)
    }

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = generator.next()
            for _ in 0..<8 where index < count {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return bytes
    }

    static func blobPath(_ document: String, _ hash: String? = nil) -> String {
        "/v1/documents/\(document)/blobs" + (hash.map { "/\($0)" } ?? "")
    }

    /// Polls `condition` until it holds or `seconds` pass.
    static func eventually(seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }
}

/// What a server holds for blobs, to compare before and after a refused call: the
/// index (hash, size, type), each document's references, unfinished uploads, and the
/// bytes of every content file.
struct StoredBlobState: Equatable {
    var blobs: [String]
    var references: [String: [String]]
    var uploads: [String]
    var files: [String: String]

    init(_ server: AccordServer, documents: [DocumentID]) throws {
        let store = server.blobs.store
        blobs = try store.list().map { "\($0.hash.hex) \($0.size) \($0.contentType)" }
        var references: [String: [String]] = [:]
        for document in documents { references[document.rawValue] = try store.blobs(referencedBy: document).map(\.hash.hex) }
        self.references = references
        uploads = try server.blobs.uploadRecords().map { "\($0.key) \($0.record.total)" }.sorted()
        var files: [String: String] = [:]
        if let directory = store.directory?.path,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        {
            for name in names where name.count == 64 {
                files[name] = try BlobHTTP.sha256(file: directory + "/" + name)
            }
        }
        self.files = files
    }
}
