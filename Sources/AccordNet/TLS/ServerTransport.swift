import CWebSockets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a server connection's bytes meet its socket: as they are, or through the
/// connection's `TLSSession` when the server has a certificate (`Configuration.tls`).
/// `ServerCore` passes every raw callback through it; `HTTPFront` and `SocketWriter`
/// write through it. With TLS, the layers above see plaintext only, and none of their
/// writes reach the socket before the handshake is done. Service thread only.
final class ServerTransport {
    private let tls: ServerTLS?
    private var sessions: [UInt: TLSSession] = [:]
    /// Where one record's plaintext is decrypted into, shared by every connection
    /// (one callback at a time on the service thread).
    private var plaintext: UnsafeMutableRawBufferPointer

    /// Told of each failed connection after `ServerTLS.onFailure`.
    private let onFailure: @Sendable (NetError) -> Void

    init(tls: ServerTLS?, onFailure: @escaping @Sendable (NetError) -> Void = { _ in }) {
        self.tls = tls
        self.onFailure = onFailure
        plaintext = tls == nil
            ? UnsafeMutableRawBufferPointer(start: nil, count: 0)
            : UnsafeMutableRawBufferPointer.allocate(byteCount: TLSSession.recordSize, alignment: 8)
    }

    deinit {
        sessions = [:]
        plaintext.deallocate()
    }

    /// `RAW_ADOPT`: a TLS connection gets its session, from the context current now (a
    /// reload affects connections accepted after it). False: none could be made.
    func adopt(_ wsi: OpaquePointer) -> Bool {
        guard let tls else { return true }
        guard let session = TLSSession(context: tls.context) else {
            failed(NetError(.tlsHandshakeFailed, "cannot make a TLS session (out of memory)"), tls)
            return false
        }
        sessions[UInt(bitPattern: wsi)] = session
        return true
    }

    /// `RAW_RX`: `deliver` gets the plaintext (the bytes as they are without TLS) and
    /// returns the callback result. A TLS failure is reported and closes the connection.
    func received(
        _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int,
        deliver: (UnsafeMutableRawPointer?, Int) -> Int32
    ) -> Int32 {
        guard let tls else { return deliver(input, length) }
        guard let session = sessions[UInt(bitPattern: wsi)] else { return -1 }
        let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        switch session.receive(wsi, bytes, buffer: plaintext, deliver: { deliver($0.baseAddress, $0.count) }) {
        case .delivered(let result):
            if result != 0 { session.closeNotify(wsi) }
            return result
        case .peerClosed:
            session.closeNotify(wsi)
            return -1
        case .failed(let error):
            failed(error, tls)
            return -1
        }
    }

    private func failed(_ error: NetError, _ tls: ServerTLS) {
        tls.onFailure(error)
        onFailure(error)
    }

    /// `RAW_WRITEABLE`: ciphertext still waiting goes first; the layer above gets its
    /// turn (`write`) only once the socket took it all and the handshake is done.
    func writeable(_ wsi: OpaquePointer, write: () -> Int32) -> Int32 {
        guard tls != nil else { return write() }
        guard let session = sessions[UInt(bitPattern: wsi)] else { return -1 }
        guard session.flush(wsi) else { return -1 }
        guard !session.hasPending, session.isEstablished else { return 0 }
        let result = write()
        if result != 0 { session.closeNotify(wsi) }
        return result
    }

    /// `RAW_CLOSE`: the session goes with the socket.
    func closed(_ wsi: OpaquePointer) {
        sessions[UInt(bitPattern: wsi)] = nil
    }

    /// Every connection is gone (the context was destroyed).
    func stop() {
        sessions = [:]
    }

    /// `send(2)` for the layers above: bytes taken (> 0), 0 when the socket would block
    /// (a `RAW_WRITEABLE` follows), -1 when the connection failed.
    func send(_ wsi: OpaquePointer, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        if tls != nil {
            guard let session = sessions[UInt(bitPattern: wsi)] else { return -1 }
            return session.send(wsi, bytes, count)
        }
        while true {
            let sent = sendWithoutSignal(lws_get_socket_fd(wsi), bytes, count)
            if sent >= 0 { return sent }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1
        }
    }

    /// Writes all of `count` bytes at `bytes`, keeping what the socket does not take
    /// for later (`lws_write`'s way, whose `LWS_PRE` bytes before `bytes` must be
    /// valid). The next `RAW_WRITEABLE` comes once it is all out. False on failure.
    func sendAll(_ wsi: OpaquePointer, _ bytes: UnsafeMutablePointer<UInt8>, _ count: Int) -> Bool {
        if tls != nil {
            guard let session = sessions[UInt(bitPattern: wsi)] else { return false }
            return session.sendAll(wsi, bytes, count)
        }
        // LWS_WRITE_RAW is a macro alias of LWS_WRITE_HTTP, which Swift does not import.
        return lws_write(wsi, bytes, count, LWS_WRITE_HTTP) >= count
    }

    /// Shuts our side down (a TLS close_notify first), still reading the peer.
    func shutdownWrite(_ wsi: OpaquePointer) {
        if tls != nil {
            sessions[UInt(bitPattern: wsi)]?.shutdownWrite(wsi)
            return
        }
        shutdown(lws_get_socket_fd(wsi), Int32(SHUT_WR))
    }
}

/// `send(2)` without SIGPIPE: a peer gone mid-write is an error, not a signal.
func sendWithoutSignal(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    return send(fd, bytes, count, 0)  // lws sets SO_NOSIGPIPE on Apple platforms
    #endif
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension ServerTransport: Sendable {}
