/// The parts of a `ws://host[:port][/path][?query]` URL the client connects with (and
/// of the `http://` URLs of ``HTTPClient``, which have the same shape).
struct WebSocketURL: Equatable {
    var host: String
    var port: Int
    /// Path plus query, as sent in the request line.
    var pathAndQuery: String

    init(host: String, port: Int, pathAndQuery: String) {
        self.host = host
        self.port = port
        self.pathAndQuery = pathAndQuery
    }

    /// Throws `invalidURL` for anything but `scheme` (`ws://`, or `http://` for the
    /// HTTP client) with a host (`wss://` and `https://` are not supported yet).
    init(_ text: String, scheme: String = "ws://") throws(NetError) {
        guard text.lowercased().hasPrefix(scheme) else {
            throw NetError(.invalidURL, "only \(scheme) URLs are supported: \(text)")
        }
        let rest = text.dropFirst(scheme.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        var host = Substring(authority)
        var port = 80
        if authority.hasPrefix("[") {  // [v6]:port
            guard let close = authority.firstIndex(of: "]") else {
                throw NetError(.invalidURL, "unterminated IPv6 address: \(text)")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let parsed = Int(after.dropFirst()) else { throw NetError(.invalidURL, "bad port: \(text)") }
                port = parsed
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let parsed = Int(authority[authority.index(after: colon)...]) else {
                throw NetError(.invalidURL, "bad port: \(text)")
            }
            port = parsed
        }
        guard !host.isEmpty, (1...65535).contains(port) else {
            throw NetError(.invalidURL, "missing host or port out of range: \(text)")
        }
        self.host = String(host)
        self.port = port
        self.pathAndQuery = path
    }
}
