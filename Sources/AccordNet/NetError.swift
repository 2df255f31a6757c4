/// The one error AccordNet throws. AccordNet sits below AccordCRDT's `AccordError` in the
/// layer map (it depends on CWebSockets only), so it has its own error with the same
/// shape: a stable string code plus a free-form message. Higher layers wrap it.
public struct NetError: Error, Sendable, CustomStringConvertible {
    /// A stable code. The raw strings are API: they are never renamed.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// lws_create_context or lws_create_vhost failed (address in use, bad host, ...).
        public static let listenFailed = Code(rawValue: "NET_LISTEN_FAILED")
        /// The URL is not a `ws://`, `wss://` (or `http://`, `https://`) URL this client can open.
        public static let invalidURL = Code(rawValue: "NET_INVALID_URL")
        /// The connection could not be established, or the upgrade was refused (for an
        /// HTTP request: it never reached the server).
        public static let connectFailed = Code(rawValue: "NET_CONNECT_FAILED")
        /// An HTTP request's connection broke after it was made, before the response
        /// was complete (the server may have seen the request).
        public static let requestFailed = Code(rawValue: "NET_REQUEST_FAILED")
        /// An HTTP request got no complete response within its timeout.
        public static let timedOut = Code(rawValue: "NET_TIMEOUT")
        /// An HTTP request was cancelled (its task, or the client stopping).
        public static let cancelled = Code(rawValue: "NET_CANCELLED")
        /// An HTTP response body larger than the client accepts.
        public static let responseTooLarge = Code(rawValue: "NET_RESPONSE_TOO_LARGE")
        /// The TLS settings cannot be used (a trusted-certificates file that cannot be read;
        /// a server certificate or key file that cannot be read, parsed, or do not match).
        public static let tlsConfiguration = Code(rawValue: "NET_TLS_CONFIGURATION")
        /// A server connection's TLS failed (garbage instead of a ClientHello, no common
        /// version or cipher, a bad record); the connection was closed. Reported through
        /// `ServerTLS.onFailure` with OpenSSL's reason.
        public static let tlsHandshakeFailed = Code(rawValue: "NET_TLS_HANDSHAKE_FAILED")
        /// A client refused the server's certificate: it does not chain to a trusted
        /// authority, names another host, or has expired (OpenSSL's reason in the
        /// message; see `CertificateRefusal`). Distinct from `connectFailed` so callers can tell a
        /// misconfigured server or an interception from a network failure.
        public static let tlsCertificateInvalid = Code(rawValue: "NET_TLS_CERTIFICATE_INVALID")
        /// Every code, for the golden test.
        public static let all: [Code] = [
            .listenFailed, .invalidURL, .connectFailed, .requestFailed, .timedOut, .cancelled, .responseTooLarge,
            .tlsConfiguration, .tlsHandshakeFailed, .tlsCertificateInvalid,
        ]
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension NetError.Code {
    /// Lets callers write `catch NetError.Code.connectFailed`.
    public static func ~= (code: NetError.Code, error: any Error) -> Bool {
        (error as? NetError)?.code == code
    }
}
