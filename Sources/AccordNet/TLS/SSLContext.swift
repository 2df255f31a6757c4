import COpenSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `SSL_CTX`, freed when the last holder lets go. A server's (`ServerTLS`): `SSL_new`
/// takes its own reference, so a connection outlives a reload that dropped its context.
/// A client's (`LWSContext`): lws is handed it as `provided_client_ssl_ctx` and never
/// frees it, so the context outlives `lws_context_destroy` by being released after it.
final class SSLContext: @unchecked Sendable {
    // SSL_CTX is safe to share across threads once configured; it is never changed after init.
    let pointer: OpaquePointer

    /// TLS 1.2 ciphers: ECDHE key exchange with AEAD only (TLS 1.3 suites are OpenSSL's).
    static let tls12Ciphers = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    /// A server's: the certificate chain and its key, TLS 1.2 or newer with the ciphers
    /// above, idle connections without record buffers, no session cache, no renegotiation.
    init(certificateFile: String, keyFile: String) throws(NetError) {
        for (file, what) in [(certificateFile, "certificate"), (keyFile, "key")] where access(file, R_OK) != 0 {
            throw NetError(.tlsConfiguration, "the TLS \(what) file \(file) cannot be read: \(String(cString: strerror(errno)))")
        }
        let context = try Self.make(TLS_server_method())
        func fail(_ what: String) -> NetError { Self.failure(what, freeing: context) }
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

    /// A client's: TLS 1.2 or newer, the server's certificate verified against the
    /// authorities `trust` names (lws checks the host name). `NET_TLS_CONFIGURATION` when
    /// they cannot be loaded: an unreadable file, or one that holds no PEM certificate.
    init(client trust: ClientTLS) throws(NetError) {
        try trust.validate()
        let context = try Self.make(TLS_client_method())
        let loaded = trust.trustedCertificatesFile.map { SSL_CTX_load_verify_locations(context, $0, nil) }
            ?? SSL_CTX_set_default_verify_paths(context)
        guard loaded == 1 else {
            let source = trust.trustedCertificatesFile.map { "the certificates in \($0)" } ?? "the system's certificate authorities"
            throw Self.failure("OpenSSL could not load \(source) (not PEM certificates?)", freeing: context)
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        self.pointer = context
    }

    deinit { SSL_CTX_free(pointer) }

    /// A new context for `method` that refuses TLS 1.0 and 1.1.
    private static func make(_ method: OpaquePointer?) throws(NetError) -> OpaquePointer {
        ERR_clear_error()
        guard let context = SSL_CTX_new(method) else {
            throw NetError(.tlsConfiguration, "cannot make a TLS context: \(OpenSSLError.drain(fallback: "out of memory"))")
        }
        guard accord_ssl_ctx_require_tls12(context) == 1 else { throw failure("cannot require TLS 1.2", freeing: context) }
        return context
    }

    /// `NET_TLS_CONFIGURATION` with OpenSSL's reasons, after freeing the half-made context.
    private static func failure(_ what: String, freeing context: OpaquePointer) -> NetError {
        let reason = OpenSSLError.drain(fallback: "no reason given")
        SSL_CTX_free(context)
        return NetError(.tlsConfiguration, "\(what): \(reason)")
    }
}
