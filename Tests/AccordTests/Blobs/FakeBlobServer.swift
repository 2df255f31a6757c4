import Foundation
import AccordTesting

/// A tiny HTTP/1.1 server on 127.0.0.1 for client tests that need a server to
/// misbehave in ways `accord serve` never does: it serves blob GETs from a table, and
/// can serve wrong bytes, refuse, or stall. One thread, one connection at a time, each
/// closed after its response. Everything else is a 404.
final class FakeBlobServer: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: the tables are read and written under `lock`.
    enum Behaviour: Sendable {
        case serve([UInt8])
        /// Answers 200 with these bytes instead of the blob's.
        case wrongBytes([UInt8])
        case status(Int, code: String)
        /// Sends the headers, then nothing for this long.
        case stall(seconds: Double)
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var blobs: [String: Behaviour] = [:]
    private var requests: [String] = []
    private var thread: Thread?

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [unowned self] in self.serve() }
        self.thread = thread
        thread.start()
    }

    func set(_ hash: String, _ behaviour: Behaviour) { lock.withLock { blobs[hash] = behaviour } }

    /// Request lines received so far ("GET /v1/...").
    var requestLines: [String] { lock.withLock { requests } }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.containsHeaderEnd {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received += buffer[..<count]
            if received.count > 64 * 1024 { return }
        }
        let head = String(decoding: received, as: UTF8.self)
        let requestLine = head.components(separatedBy: "\r\n").first ?? ""
        lock.withLock { requests.append(requestLine) }
        let parts = requestLine.split(separator: " ")
        guard parts.count >= 2 else { return }
        let path = parts[1].split(separator: "/").map(String.init)
        // v1 documents <id> blobs <hash>
        guard parts[0] == "GET", path.count == 5, path[0] == "v1", path[3] == "blobs",
            let behaviour = lock.withLock({ blobs[path[4]] })
        else {
            return respond(connection, 404, body: Array(#"{"error":{"code":"BLOB_NOT_FOUND","message":"no such blob"}}"#.utf8))
        }
        switch behaviour {
        case .serve(let bytes), .wrongBytes(let bytes):
            respond(connection, 200, body: bytes, contentType: "application/octet-stream")
        case .status(let status, let code):
            respond(connection, status, body: Array(#"{"error":{"code":"\#(code)","message":"refused"}}"#.utf8))
        case .stall(let seconds):
            let head = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n"
            _ = Array(head.utf8).withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            Thread.sleep(forTimeInterval: seconds)
        }
    }

    private func respond(_ connection: Int32, _ status: Int, body: [UInt8], contentType: String = "application/json") {
        let head = "HTTP/1.1 \(status) X\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let all = Array(head.utf8) + body
        var sent = 0
        while sent < all.count {
            let count = all[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            sent += count
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        for index in 0...(count - 4) where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return true
        }
        return false
    }
}
