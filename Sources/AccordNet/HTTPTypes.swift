/// An HTTP method as its upper-case token ("GET", "POST", ...).
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
    public var description: String { rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")
}

/// One `name=value` pair of a request's query string, percent-decoded (`+` is a space).
public struct QueryItem: Hashable, Sendable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A request as the server saw it: an HTTP request for a route, or the upgrade request
/// of a WebSocket. Header names are lower-case.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The path without the query, exactly as sent but percent-decoded (strictly: a
    /// path that does not decode to UTF-8 without control characters is refused with
    /// 400 before any route sees it). Never normalised: `/a/../b` stays `/a/../b`, and
    /// `+` is a plus sign.
    public var path: String
    /// The request target as it appeared on the request line (path and query, still
    /// percent-encoded).
    public var target: String
    public var query: [QueryItem]
    public var headers: [String: String]
    public var body: [UInt8]

    public init(
        method: HTTPMethod, path: String, query: [QueryItem] = [], headers: [String: String] = [:],
        body: [UInt8] = [], target: String? = nil
    ) {
        self.method = method
        self.path = path
        self.target = target ?? path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The value of header `name` (any case), if the request had it.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The first value of query parameter `name`.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

/// A route's answer. `contentType` goes into `content-type`; `headers` are added as given.
/// With a `bodyStream`, the body is that stream's bytes (and `body` is ignored).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var contentType: String
    public var body: [UInt8]
    /// A body sent piece by piece as the socket takes it (see ``HTTPBodyStream``).
    public var bodyStream: (any HTTPBodyStream)?
    /// Set by ``deferred(_:)``: the answer comes later (see ``HTTPResponder``).
    public internal(set) var deferral: HTTPDeferral?

    public init(
        status: Int, contentType: String = "application/octet-stream",
        headers: [(name: String, value: String)] = [], body: [UInt8] = [], bodyStream: (any HTTPBodyStream)? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
        self.bodyStream = bodyStream
    }

    /// The body's length as announced in `content-length`.
    public var bodyLength: Int { bodyStream?.length ?? body.count }

    public init(status: Int, text: String, headers: [(name: String, value: String)] = []) {
        self.init(status: status, contentType: "text/plain; charset=utf-8", headers: headers, body: Array(text.utf8))
    }
}

/// Route table: exact method + path to a handler, and prefix routes for paths that carry
/// parameters (`/v1/documents/` + id). An exact route wins over a prefix route; among
/// prefix routes the longest prefix wins. A handler runs on the server's service thread
/// and must return quickly (it must never block on async work); work that takes long
/// answers with ``HTTPResponse/deferred(_:)`` and responds from another thread.
public struct HTTPRoutes: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// Decides on an upload from its head alone (the request's `body` is empty).
    public typealias UploadHandler = @Sendable (HTTPRequest) -> HTTPUploadDecision

    struct Key: Hashable {
        var method: HTTPMethod
        var path: String
    }

    private var handlers: [Key: Handler] = [:]
    private var prefixHandlers: [(key: Key, handler: Handler)] = []
    private var uploadHandlers: [(method: HTTPMethod, matches: @Sendable (String) -> Bool, handler: UploadHandler)] = []

    public init() {}

    /// Routes requests of `method` whose path `matches` to an upload handler: their
    /// body streams to an ``HTTPBodySink`` instead of being buffered, and the server's
    /// `maxHTTPBodySize` does not apply (the handler enforces its own limit from the
    /// `content-length` before any byte is read). Checked before every other route.
    public mutating func addUpload(
        _ method: HTTPMethod, matching matches: @escaping @Sendable (String) -> Bool, _ handler: @escaping UploadHandler
    ) {
        uploadHandlers.append((method, matches, handler))
    }

    /// The upload handler for a request line, if one claims it.
    func uploadHandler(_ method: HTTPMethod, _ path: String) -> UploadHandler? {
        uploadHandlers.first { $0.method == method && $0.matches(path) }?.handler
    }

    public mutating func add(_ method: HTTPMethod, _ path: String, _ handler: @escaping Handler) {
        handlers[Key(method: method, path: path)] = handler
    }

    /// Routes every path that starts with `prefix` (and has no exact route) to `handler`.
    public mutating func add(_ method: HTTPMethod, prefix: String, _ handler: @escaping Handler) {
        prefixHandlers.removeAll { $0.key == Key(method: method, path: prefix) }
        prefixHandlers.append((Key(method: method, path: prefix), handler))
        prefixHandlers.sort { $0.key.path.utf8.count > $1.key.path.utf8.count }
    }

    /// The response for `request`: the route's, 405 when only the method differs, else 404.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        if let handler = handlers[Key(method: request.method, path: request.path)] {
            return handler(request)
        }
        if let route = prefixHandlers.first(where: {
            $0.key.method == request.method && request.path.hasPrefix($0.key.path)
        }) {
            return route.handler(request)
        }
        if handlers.keys.contains(where: { $0.path == request.path })
            || prefixHandlers.contains(where: { request.path.hasPrefix($0.key.path) }) {
            return HTTPResponse(status: 405, text: "method not allowed\n")
        }
        return HTTPResponse(status: 404, text: "not found\n")
    }
}
