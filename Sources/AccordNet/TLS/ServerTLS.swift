import COpenSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The certificate and key a server presents over TLS (`wss://`, `https://`), loaded
/// into one OpenSSL context that every new connection is made from. `reload()` reads
/// the files again into a new context for connections accepted from then on; open
/// connections keep the one they started with (OpenSSL counts its references).
///
/// Versions: TLS 1.2 and 1.3 only. Ciphers: OpenSSL's TLS 1.3 suites, and for TLS 1.2
/// ECDHE with AES-GCM or ChaCha20-Poly1305 only (forward secrecy, AEAD). No session
/// cache on the server (resumption works with tickets), no renegotiation.
public final class ServerTLS: Sendable {
    /// The PEM certificate chain: the server's certificate first, then intermediates.
    public let certificateFile: String
    /// The PEM private key of that certificate.
    public let keyFile: String
    /// Told on the service thread of every connection whose TLS failed (a handshake
    /// with no common version, garbage instead of a ClientHello, a bad record), with
    /// `NET_TLS_HANDSHAKE_FAILED` and OpenSSL's reason; the connection is closed. For
    /// logs and metrics: it must return quickly.
    public let onFailure: @Sendable (NetError) -> Void
    private let current: Locked<SSLContext>

    /// Loads the files. Throws `NET_TLS_CONFIGURATION` with the reason when either cannot
    /// be read or parsed, or the key is not the certificate's.
    public init(
        certificateFile: String, keyFile: String, onFailure: @escaping @Sendable (NetError) -> Void = { _ in }
    ) throws(NetError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.onFailure = onFailure
        self.current = Locked(try SSLContext(certificateFile: certificateFile, keyFile: keyFile))
    }

    /// Reads the certificate and key files again (an operator replaced them) for new
    /// connections. On failure throws `NET_TLS_CONFIGURATION` and keeps serving the
    /// previous certificate.
    public func reload() throws(NetError) {
        let fresh = try SSLContext(certificateFile: certificateFile, keyFile: keyFile)
        current.withLock { $0 = fresh }
    }

    /// The context new connections are made from now.
    var context: SSLContext { current.withLock { $0 } }
}
