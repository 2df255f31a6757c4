#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a client checks the servers it reaches over `wss://` and `https://`: the
/// server's certificate must chain to a trusted authority and name the host the URL
/// names (OpenSSL, through libwebsockets). Plain `ws://` and `http://` are unaffected.
public struct ClientTLS: Hashable, Sendable {
    /// A PEM file of the certificate authorities to trust instead of the system's
    /// (`/etc/ssl/certs`): a private CA, or a test's own. Nil: the system's.
    public var trustedCertificatesFile: String?

    public init(trustedCertificatesFile: String? = nil) {
        self.trustedCertificatesFile = trustedCertificatesFile
    }

    /// The system's certificate authorities.
    public static let system = ClientTLS()

    /// Throws `NET_TLS_CONFIGURATION` when the trusted-certificates file cannot be read,
    /// which lws would only report as a failed context.
    func validate() throws(NetError) {
        guard let file = trustedCertificatesFile else { return }
        guard access(file, R_OK) == 0 else {
            throw NetError(.tlsConfiguration, "the trusted certificates file \(file) cannot be read")
        }
    }
}
