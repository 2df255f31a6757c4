import AccordCRDT
import AccordNet
import Dispatch
import Foundation

/// `accord serve --tls-cert FILE --tls-key FILE`: the certificate the port serves
/// `wss://` and `https://` with, read again on SIGHUP.
enum ServeTLS {
    /// nil when neither option is given. One without the other, or files OpenSSL cannot
    /// use, is `INVALID_ARGUMENT` (details: `netCode` NET_TLS_CONFIGURATION) with the reason.
    static func load(certificate: String?, key: String?) throws(AccordError) -> ServerTLS? {
        switch (certificate, key) {
        case (nil, nil): return nil
        case (let certificate?, let key?):
            do {
                return try ServerTLS(certificateFile: certificate, keyFile: key, onFailure: { error in
                    // One line per failed handshake (scanners, plain-HTTP clients): the reason.
                    Output.error("accord serve: TLS: \(error.code.rawValue): \(error.message)")
                })
            } catch {
                throw AccordError(
                    .invalidArgument, "--tls-cert/--tls-key: \(error.code.rawValue): \(error.message)",
                    details: ["netCode": error.code.rawValue, "certificate": certificate, "key": key])
            }
        default:
            throw AccordCommand.usageError("--tls-cert and --tls-key go together", help: "accord serve --help")
        }
    }

    /// Watches SIGHUP: each reads the certificate and key files again for new
    /// connections (open ones keep theirs). A file that cannot be used keeps the old
    /// certificate, and the reason is logged. Cancel the source to stop watching.
    static func reloadOnHangUp(_ tls: ServerTLS) -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler {
            do throws(NetError) {
                try tls.reload()
                Output.error("accord serve: SIGHUP: reloaded \(tls.certificateFile) for new connections")
            } catch {
                Output.error(
                    "accord serve: SIGHUP: kept the previous certificate: \(error.code.rawValue): \(error.message)")
            }
            fflush(nil)
        }
        source.resume()
        return source
    }
}
