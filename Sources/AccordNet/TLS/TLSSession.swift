import COpenSSL
import CWebSockets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server side of TLS on one accepted socket, with memory BIOs between OpenSSL and
/// the socket: lws hands the raw socket's bytes to `receive`, OpenSSL turns them into
/// plaintext for the HTTP and WebSocket layers, and what they write is encrypted into
/// `pending` and sent from there with `send(2)`.
///
/// Why not lws' own TLS: the listener adopts every socket raw (see `LWSContext`), and
/// lws 4.1 adopts those without `LWS_ADOPT_ALLOW_SSL`, so a vhost certificate would be
/// silently ignored.
///
/// Backpressure: the session takes plaintext (`send`) only while `pending` is empty,
/// so it behaves like a socket with one record of buffer and never holds more than one
/// write's ciphertext. Service thread only.
final class TLSSession {
    private let ssl: OpaquePointer
    /// The memory BIOs; replaced by fresh ones after a large burst (see `shrink`).
    private var input: OpaquePointer
    private var output: OpaquePointer
    /// Ciphertext the socket has not taken yet, from `offset` on.
    private var pending: [UInt8] = []
    private var offset = 0
    private(set) var isEstablished = false
    /// Our close_notify is queued: nothing more may be written.
    private(set) var isShutDown = false
    /// Shut the socket down for writing once `pending` has gone out.
    private var shutdownSocketAfterFlush = false

    /// TLS records carry at most 16 KiB of plaintext; larger writes are split.
    static let recordSize = 16 * 1024
    /// A memory BIO keeps the largest size it ever held (OpenSSL's BUF_MEM never shrinks):
    /// one that took more than this at once is replaced by a fresh one once empty, so a
    /// connection that once carried a large message does not keep 16-64 KiB per BIO idle.
    static let bioKeepLimit = 4 * 1024

    enum Received {
        /// Plaintext (possibly none) was handed on; the handler's result.
        case delivered(Int32)
        /// The peer sent its close_notify.
        case peerClosed
        case failed(NetError)
    }

    init?(context: SSLContext) {
        guard let ssl = SSL_new(context.pointer) else { return nil }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_bio(ssl, input, output)  // the SSL owns both BIOs from here
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.input = input
        self.output = output
    }

    deinit { SSL_free(ssl) }

    /// Ciphertext waits for the socket.
    var hasPending: Bool { offset < pending.count }

    /// Bytes read from the socket. Runs the handshake until it completes, then hands
    /// every whole record's plaintext to `deliver` (in `buffer`, which it may modify)
    /// until `deliver` returns non-zero. What OpenSSL answers (handshake flights,
    /// tickets, alerts) is sent before returning.
    func receive(
        _ wsi: OpaquePointer, _ bytes: UnsafeRawBufferPointer, buffer: UnsafeMutableRawBufferPointer,
        deliver: (UnsafeMutableRawBufferPointer) -> Int32
    ) -> Received {
        ERR_clear_error()
        if bytes.count > 0 {
            // A memory BIO takes everything (it grows); lws hands at most its rx buffer at once.
            guard BIO_write(input, bytes.baseAddress, Int32(bytes.count)) == Int32(bytes.count) else {
                return .failed(NetError(.tlsHandshakeFailed, OpenSSLError.drain(fallback: "out of memory")))
            }
        }
        var outcome = Received.delivered(0)
        loop: while true {
            if !isEstablished {
                let result = SSL_do_handshake(ssl)
                if result == 1 {
                    isEstablished = true
                    // Writes held back during the handshake may go now.
                    lws_callback_on_writable(wsi)
                    continue
                }
                if SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ { break }
                outcome = .failed(NetError(.tlsHandshakeFailed, OpenSSLError.drain(fallback: "the handshake failed")))
                break
            }
            let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
            if count > 0 {
                let result = deliver(UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(count)]))
                if result != 0 {
                    outcome = .delivered(result)
                    break
                }
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ: break loop
            case SSL_ERROR_ZERO_RETURN: outcome = .peerClosed
            default: outcome = .failed(NetError(.tlsHandshakeFailed, OpenSSLError.drain(fallback: "a TLS record was refused")))
            }
            break
        }
        if bytes.count > Self.bioKeepLimit, accord_bio_pending(input) == 0, let fresh = BIO_new(BIO_s_mem()) {
            SSL_set0_rbio(ssl, fresh)  // frees the grown one
            input = fresh
        }
        // Handshake flights, session tickets, alerts: whatever OpenSSL wrote.
        takeOutput()
        if !flush(wsi), case .delivered = outcome { return .delivered(-1) }
        return outcome
    }

    /// Like `send(2)` on a non-blocking socket: takes up to one record of plaintext when
    /// no ciphertext waits and returns how much; 0 when the socket is busy (it asks for
    /// a `RAW_WRITEABLE`); -1 when the connection failed.
    func send(_ wsi: OpaquePointer, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        guard flush(wsi) else { return -1 }
        if hasPending { return 0 }
        guard isEstablished, !isShutDown else { return -1 }
        let take = min(count, Self.recordSize)
        ERR_clear_error()
        guard SSL_write(ssl, bytes, Int32(take)) == Int32(take) else {
            _ = OpenSSLError.drain(fallback: "")
            return -1
        }
        takeOutput()
        return flush(wsi) ? take : -1
    }

    /// Encrypts all of `count` bytes into `pending` and sends what the socket takes (the
    /// way `lws_write` keeps the rest of a raw write). Callers bound one call's size.
    func sendAll(_ wsi: OpaquePointer, _ bytes: UnsafeRawPointer, _ count: Int) -> Bool {
        guard isEstablished, !isShutDown else { return false }
        ERR_clear_error()
        var written = 0
        while written < count {
            let take = min(count - written, Self.recordSize)
            guard SSL_write(ssl, bytes + written, Int32(take)) == Int32(take) else {
                _ = OpenSSLError.drain(fallback: "")
                return false
            }
            written += take
            takeOutput()
        }
        return flush(wsi)
    }

    /// Our close_notify, then the socket shut down for writing once it went out. The
    /// peer's input is still read (and decrypted) until it closes.
    func shutdownWrite(_ wsi: OpaquePointer) {
        if isEstablished, !isShutDown {
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
            _ = OpenSSLError.drain(fallback: "")
            takeOutput()
        }
        isShutDown = true
        shutdownSocketAfterFlush = true
        _ = flush(wsi)
    }

    /// The connection is closing now: queue our close_notify and give it one try at the
    /// socket, without waiting (the descriptor is about to go).
    func closeNotify(_ wsi: OpaquePointer) {
        guard isEstablished, !isShutDown else { return }
        isShutDown = true
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        _ = OpenSSLError.drain(fallback: "")
        takeOutput()
        _ = flush(wsi, requestWritable: false)
    }

    /// Sends what waits until the socket would block (then asks lws for a
    /// `RAW_WRITEABLE`). False on a socket error.
    func flush(_ wsi: OpaquePointer, requestWritable: Bool = true) -> Bool {
        let fd = lws_get_socket_fd(wsi)
        while offset < pending.count {
            let sent = pending.withUnsafeBytes { bytes in
                sendWithoutSignal(fd, bytes.baseAddress! + offset, bytes.count - offset)
            }
            if sent > 0 {
                offset += sent
                continue
            }
            if sent < 0, errno == EINTR { continue }
            if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
            return false
        }
        if offset >= pending.count {
            // Give the memory back between bursts: an idle connection holds nothing here.
            pending = []
            offset = 0
            if shutdownSocketAfterFlush {
                shutdownSocketAfterFlush = false
                shutdown(fd, Int32(SHUT_WR))
            }
        } else if requestWritable {
            lws_callback_on_writable(wsi)
        }
        return true
    }

    /// Moves what OpenSSL wrote into the output BIO to the end of `pending`.
    private func takeOutput() {
        let available = Int(accord_bio_pending(output))
        guard available > 0 else { return }
        if offset > 0, offset == pending.count {
            pending.removeAll(keepingCapacity: true)
            offset = 0
        }
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: available))
        let read = pending.withUnsafeMutableBytes { bytes in
            BIO_read(output, bytes.baseAddress! + start, Int32(available))
        }
        pending.removeLast(available - max(0, Int(read)))
        if available > Self.bioKeepLimit, accord_bio_pending(output) == 0, let fresh = BIO_new(BIO_s_mem()) {
            SSL_set0_wbio(ssl, fresh)  // frees the grown one
            output = fresh
        }
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension TLSSession: Sendable {}
