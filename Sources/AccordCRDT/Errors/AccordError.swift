/// The one error type Accord throws.
///
/// `code` is stable and meant for programs; `message` is for people and may change
/// between releases. `details` carries structured context (a document id, an offset).
public struct AccordError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var details: [String: String]
    /// The HTTP status when the error is a server's answer to a REST call (403, 404,
    /// ...); nil for every error raised on this device.
    public var httpStatus: Int?

    public init(_ code: ErrorCode, _ message: String, details: [String: String] = [:], httpStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.details = details
        self.httpStatus = httpStatus
    }

    /// `CODE: message`, the form the command line prints after `error: `.
    public var description: String { "\(code.rawValue): \(message)" }

    static func malformed(_ message: String, offset: Int? = nil) -> AccordError {
        var details: [String: String] = [:]
        if let offset { details["offset"] = String(offset) }
        return AccordError(.malformedUpdate, message, details: details)
    }
}
