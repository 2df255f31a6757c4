/// A request or connection the HTTP layer refuses before any route sees it: a status
/// and a stable code, sent as `{"error":{"code":...,"message":...}}` (the shape of every
/// Accord error body), after which the connection closes.
public struct HTTPRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    /// Stable, bounded: safe as a metrics label.
    public var code: String
    public var message: String

    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// The request line, a header or the path is not valid HTTP/1.1 (or not decodable).
    static func malformed(_ message: String) -> HTTPRefusal {
        HTTPRefusal(status: 400, code: "MALFORMED_REQUEST", message: message)
    }
    /// The request line and headers exceed `maxHeaderBytes`.
    static func headersTooLarge(_ limit: Int) -> HTTPRefusal {
        HTTPRefusal(status: 431, code: "HEADERS_TOO_LARGE", message: "request line and headers exceed \(limit) bytes")
    }
    /// Chunked (or any non-identity) transfer coding: bodies need a Content-Length.
    static let lengthRequired = HTTPRefusal(
        status: 411, code: "LENGTH_REQUIRED", message: "request bodies need a Content-Length (chunked is not accepted)")
    static func bodyTooLarge(_ limit: Int) -> HTTPRefusal {
        HTTPRefusal(status: 413, code: "BODY_TOO_LARGE", message: "request body exceeds \(limit) bytes")
    }
    /// CONNECT, TRACE and methods the server does not know.
    static func methodNotSupported(_ method: String) -> HTTPRefusal {
        HTTPRefusal(status: 501, code: "METHOD_NOT_SUPPORTED", message: "method \(method) is not supported")
    }
    static let versionNotSupported = HTTPRefusal(
        status: 505, code: "HTTP_VERSION_NOT_SUPPORTED", message: "only HTTP/1.0 and HTTP/1.1 are served")
    /// More HTTP-stage connections from one address than `maxConnectionsPerAddress`.
    static let tooManyConnections = HTTPRefusal(
        status: 503, code: "TOO_MANY_CONNECTIONS", message: "too many connections from this address")
    /// The process is close to its descriptor limit; only reserved paths are served.
    static let serverBusy = HTTPRefusal(
        status: 503, code: "SERVER_BUSY", message: "the server is near its connection limit; retry later")
    /// `shouldUpgrade` said no.
    static let upgradeRefused = HTTPRefusal(
        status: 403, code: "UPGRADE_REFUSED", message: "the WebSocket upgrade was refused")

    /// The response carrying this refusal; the connection closes after it.
    var response: HTTPResponse {
        HTTPResponse(
            status: status, contentType: "application/json",
            body: Array(#"{"error":{"code":"\#(code)","message":"\#(Self.jsonEscaped(message))"}}"#.utf8))
    }

    private static func jsonEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
