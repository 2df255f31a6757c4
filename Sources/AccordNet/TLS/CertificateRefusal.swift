import COpenSSL

/// Why a client's TLS handshake refused the server's certificate. lws 4.1 reports a
/// refused certificate to `CLIENT_CONNECTION_ERROR` only as "connect SSL err 1", like
/// any other failure, but first asks the protocol callback
/// (`LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION`, with the `X509_STORE_CTX`
/// as `user` and OpenSSL's verdict as `length`); a client connection notes OpenSSL's
/// reason there and fails with `NET_TLS_CERTIFICATE_INVALID` instead of
/// `NET_CONNECT_FAILED`. The verdict itself is OpenSSL's and lws': this never changes it.
enum CertificateRefusal {
    /// OpenSSL's reason when it refused a certificate of the chain (`preverified` 0),
    /// else nil.
    static func reason(context: UnsafeMutableRawPointer?, preverified: Int) -> String? {
        guard preverified == 0, let context else { return nil }
        let error = X509_STORE_CTX_get_error(OpaquePointer(context))
        guard error != X509_V_OK, let text = X509_verify_cert_error_string(Int(error)) else { return nil }
        return String(validatingCString: text) ?? "error \(error)"
    }

    /// The failure of a client connection lws reported with `message`: the certificate's
    /// refusal when one was noted, else `connectFailed`.
    static func failure(_ message: String, refusal: String?) -> NetError {
        guard let refusal else { return NetError(.connectFailed, message) }
        return NetError(.tlsCertificateInvalid, "the server's certificate was refused: \(refusal) (\(message))")
    }
}
