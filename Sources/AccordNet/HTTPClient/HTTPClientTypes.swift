/// One request for ``HTTPClient``: a method, an `http://host[:port]/path?query` URL
/// (path and query as they go on the request line, so percent-encode them), extra
/// headers and a body: bytes, or a file streamed as it is sent (``bodyFile``, which
/// wins over `body`). `content-length` is set from the body; `host` from the URL.
public struct HTTPClientRequest: Sendable {
    public var method: HTTPMethod
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var bodyFile: HTTPFileBody?
    /// Response headers lws does not know by itself (such as `accord-upload-offset`)
    /// to read into ``HTTPClientResponse/headers``; lws' own tokens are always read.
    public var customResponseHeaders: [String] = []

    public init(
        _ method: HTTPMethod, _ url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// What the server answered: any status (a 4xx or 5xx is a response, not an error),
/// the headers lws recognises (names lower-case, without the colon) and the whole body
/// (empty when a sink took it).
public struct HTTPClientResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of header `name` (any case), if the response had it.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
