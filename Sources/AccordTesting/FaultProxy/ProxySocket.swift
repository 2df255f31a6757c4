#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX socket calls ``FaultProxy`` makes, each returning its errno as a
/// ``FaultProxy/Failure``. Blocking sockets; threads that block on them are woken by
/// `shutdown`, never by `close` (closing an fd another thread waits on would let the
/// number be reused under it).
enum ProxySocket {
    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)  // EPIPE instead of SIGPIPE
    #else
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0  // SO_NOSIGPIPE is set on each socket instead
    #endif

    /// A socket listening on `127.0.0.1`, on a port the kernel picks when `port` is 0.
    static func makeListener(port: Int) throws(FaultProxy.Failure) -> (fd: Int32, port: Int) {
        let fd = try newSocket()
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = try ipv4("127.0.0.1", port: port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let failedCall: String? = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                if bind(fd, pointer, length) != 0 { return "bind" }
                if listen(fd, 128) != 0 { return "listen" }
                if getsockname(fd, pointer, &length) != 0 { return "getsockname" }
                return nil
            }
        }
        if let failedCall {
            let failure = FaultProxy.Failure(call: failedCall, errno: errno)
            close(fd)
            throw failure
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Waits up to `milliseconds` for a connection, then accepts it; nil on timeout or error.
    static func acceptConnection(_ listener: Int32, waitingUpTo milliseconds: Int32) -> Int32? {
        var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) > 0 else { return nil }
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else {
            usleep(10_000)  // out of fds, say: poll would report the backlog again at once
            return nil
        }
        configure(fd)
        return fd
    }

    /// A connected socket to `host:port` (an IPv4 address). `receiveBuffer` sets
    /// `SO_RCVBUF` before connecting, so the window the peer sees stays that small (a
    /// client that never reads then stalls its sender within a few kilobytes).
    static func connectTo(host: String, port: Int, receiveBuffer: Int32? = nil) throws(FaultProxy.Failure) -> Int32 {
        let fd = try newSocket()
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = try ipv4(host, port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let failure = FaultProxy.Failure(call: "connect \(host):\(port)", errno: errno)
            close(fd)
            throw failure
        }
        configure(fd)
        return fd
    }

    /// Reads what is there (blocking until something is): nil at end of stream or on error.
    static func receive(_ fd: Int32, into buffer: inout [UInt8]) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return count }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }

    /// Writes all of `bytes`; false if the connection failed.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, sendFlags) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Sends a FIN: the peer reads end of stream, the socket can still be read.
    static func shutdownWrite(_ fd: Int32) { _ = shutdown(fd, Int32(SHUT_WR)) }

    /// Ends both directions and wakes any thread blocked on `fd`; the fd stays allocated.
    static func shutdownBoth(_ fd: Int32) { _ = shutdown(fd, Int32(SHUT_RDWR)) }

    static func closeSocket(_ fd: Int32) { _ = close(fd) }

    private static func newSocket() throws(FaultProxy.Failure) -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw FaultProxy.Failure(call: "socket", errno: errno) }
        return fd
    }

    /// No Nagle delay (a proxy adding 40 ms to small frames would fake a delay fault),
    /// and no SIGPIPE on Apple platforms.
    private static func configure(_ fd: Int32) {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Throws unless `host` is an IPv4 address in dotted form.
    static func checkIPv4(_ host: String) throws(FaultProxy.Failure) {
        _ = try ipv4(host, port: 0)
    }

    private static func ipv4(_ host: String, port: Int) throws(FaultProxy.Failure) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw FaultProxy.Failure(call: "inet_pton \(host) (an IPv4 address is needed)", errno: EINVAL)
        }
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        return address
    }
}
