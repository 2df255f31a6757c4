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

/// One `SSL_CTX`, freed when the last holder lets go (`SSL_new` takes its own reference,
/// so a connection outlives a reload that dropped its context).
final class SSLContext: @unchecked Sendable {
    // SSL_CTX is safe to share across threads once configured; it is never changed after init.
    let pointer: OpaquePointer

    /// TLS 1.2 ciphers: ECDHE key exchange with AEAD only (TLS 1.3 suites are OpenSSL's).
    static let tls12Ciphers = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    init(certificateFile: String, keyFile: String) throws(NetError) {
        for (file, what) in [(certificateFile, "certificate"), (keyFile, "key")] where access(file, R_OK) != 0 {
            throw NetError(.tlsConfiguration, "the TLS \(what) file \(file) cannot be read: \(String(cString: strerror(errno)))")
        }
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw NetError(.tlsConfiguration, "cannot make a TLS context: \(OpenSSLError.drain(fallback: "out of memory"))")
        }
        func fail(_ what: String) -> NetError {
            let reason = OpenSSLError.drain(fallback: "no reason given")
            SSL_CTX_free(context)
            return NetError(.tlsConfiguration, "\(what): \(reason)")
        }
        guard accord_ssl_ctx_require_tls12(context) == 1 else { throw fail("cannot require TLS 1.2") }
        guard SSL_CTX_set_cipher_list(context, Self.tls12Ciphers) == 1 else { throw fail("cannot set the TLS 1.2 ciphers") }
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            throw fail("the TLS certificate file \(certificateFile) holds no usable PEM certificate")
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            throw fail("the TLS key file \(keyFile) holds no usable PEM private key")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw fail("the key in \(keyFile) is not the key of the certificate in \(certificateFile)")
        }
        accord_ssl_ctx_release_buffers(context)
        accord_ssl_ctx_no_session_cache(context)
        accord_ssl_ctx_no_renegotiation(context)
        self.pointer = context
    }

    deinit { SSL_CTX_free(pointer) }
}
