import AccordCRDT
import AccordNet
import Foundation

/// How a REST call's failure becomes an ``AccordError``, in one place, so an app can
/// tell "retry" (`NETWORK_ERROR`, `NETWORK_TIMEOUT`) from "denied" (the server's code,
/// with ``AccordError/httpStatus`` and the server's `details`).
enum ServerErrorMapping {
    /// A non-2xx answer: the server's `{"error":{"code","message","details"}}`, or
    /// `UNEXPECTED_RESPONSE` when the body is not that (a proxy's page, plain text).
    static func error(status: Int, body: [UInt8]) -> AccordError {
        if let parsed = try? JSONDecoder().decode(Envelope.self, from: Data(body)), !parsed.error.code.isEmpty {
            return AccordError(
                ErrorCode(rawValue: parsed.error.code), parsed.error.message, details: parsed.error.details ?? [:],
                httpStatus: status)
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return AccordError(
            .unexpectedResponse, "the server answered \(status) without an Accord error body: \(text)",
            details: ["status": String(status)], httpStatus: status)
    }

    /// A request that got no answer. Timeouts keep the sync engine's timeout code.
    static func error(_ error: NetError) -> AccordError {
        if error.code == .tlsCertificateInvalid { return certificateRefused(error) }
        let code: ErrorCode = error.code == .timedOut ? .networkTimeout : .networkError
        return AccordError(code, "the server could not be reached: \(error.message)", details: ["netCode": error.code.rawValue])
    }

    /// The client refused the server's certificate: not a network failure to retry blindly.
    static func certificateRefused(_ error: NetError) -> AccordError {
        AccordError(.tlsCertificateInvalid, error.message, details: ["netCode": error.code.rawValue])
    }

    private struct Envelope: Decodable {
        struct Inner: Decodable {
            var code: String
            var message: String
            var details: [String: String]?
        }
        var error: Inner
    }
}
