import Foundation
#if canImport(Glibc)
import Glibc
private let streamType = Int32(SOCK_STREAM.rawValue)
private let sendFlags = Int32(MSG_NOSIGNAL)
#else
import Darwin
private let streamType = SOCK_STREAM
private let sendFlags: Int32 = 0
#endif

/// A TCP proxy on 127.0.0.1 (port 0) to a server port, which can turn the connections it
/// carries half-open: after ``freezeOpenConnections()`` their bytes are swallowed in both
/// directions and neither end hears of a close, while new connections pass normally.
/// Blocking socket calls run on threads of its own, never on Swift concurrency threads.
final class FreezingProxy: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `frozen`, `sockets`, `finishedPumps` and `isStopped` are
    // touched only while `lock` is held; `listener` and `port` never change after init.
    private let lock = NSLock()
    private let listener: Int32
    let port: Int
    private let upstreamPort: Int
    private var nextConnection = 0
    private var frozen: Set<Int> = []
    private var sockets: [Int32] = []
    private var isStopped = false
    /// Pumps finished per connection; the second one closes both sockets.
    private var finishedPumps: [Int: Int] = [:]

    init(to upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw ProxyError(description: "socket: errno \(errno)") }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw ProxyError(description: "bind/listen: errno \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    var url: String { "ws://127.0.0.1:\(port)" }

    /// Every connection open now goes silent for good, in both directions.
    func freezeOpenConnections() {
        lock.withLock { frozen.formUnion(0..<nextConnection) }
    }

    /// Stops accepting and closes every connection.
    func stop() {
        let all = lock.withLock { () -> [Int32] in
            isStopped = true
            return sockets
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in all { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, streamType, 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                close(client)
                close(upstream)
                continue
            }
            let connection = lock.withLock { () -> Int? in
                guard !isStopped else { return nil }
                sockets += [client, upstream]
                nextConnection += 1
                return nextConnection - 1
            }
            guard let connection else {
                close(client)
                close(upstream)
                return
            }
            Thread { [self] in
                pump(from: client, to: upstream, connection: connection)
                finished(connection, client, upstream)
            }.start()
            Thread { [self] in
                pump(from: upstream, to: client, connection: connection)
                finished(connection, client, upstream)
            }.start()
        }
    }

    private func finished(_ connection: Int, _ first: Int32, _ second: Int32) {
        let last = lock.withLock { () -> Bool in
            finishedPumps[connection, default: 0] += 1
            guard finishedPumps[connection] == 2 else { return false }
            sockets.removeAll { $0 == first || $0 == second }
            return true
        }
        if last {
            close(first)
            close(second)
        }
    }

    /// Copies bytes one way until EOF or an error, then passes the close on, unless the
    /// connection is frozen: then bytes are dropped and the close is kept to ourselves.
    private func pump(from source: Int32, to destination: Int32, connection: Int) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            let isFrozen = lock.withLock { frozen.contains(connection) }
            guard count > 0 else {
                if !isFrozen { shutdown(destination, Int32(SHUT_RDWR)) }
                return
            }
            if isFrozen { continue }
            var sent = 0
            while sent < count {
                let n = buffer[sent..<count].withUnsafeBytes { send(destination, $0.baseAddress, $0.count, sendFlags) }
                guard n > 0 else {
                    shutdown(source, Int32(SHUT_RDWR))
                    return
                }
                sent += n
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        return address
    }
}

struct ProxyError: Error, CustomStringConvertible {
    var description: String
}
