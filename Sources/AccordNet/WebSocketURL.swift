/// The parts of a `ws://host[:port][/path][?query]` or `wss://…` URL the client connects
/// with (and of the `http://` and `https://` URLs of ``HTTPClient``, which have the same
/// shape).
struct WebSocketURL: Equatable {
    var host: String
    var port: Int
    /// Path plus query, as sent in the request line.
    var pathAndQuery: String
    /// `wss://` or `https://`: the connection runs TLS, checking the server's certificate
    /// and name.
    var isSecure = false

    init(host: String, port: Int, pathAndQuery: String, isSecure: Bool = false) {
        self.host = host
        self.port = port
        self.pathAndQuery = pathAndQuery
        self.isSecure = isSecure
    }

    /// The `Host` header: the port is left out when it is the scheme's default.
    var hostHeader: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? bracketed : "\(bracketed):\(port)"
    }

    /// Throws `invalidURL` for anything but `scheme` (`ws://`, or `http://` for the
    /// HTTP client) or its secure form (`wss://`, `https://`) with a host.
    init(_ text: String, scheme: String = "ws://") throws(NetError) {
        let secureScheme = scheme.dropLast(3) + "s://"  // "ws://" → "wss://"
        let lowered = text.lowercased()
        if lowered.hasPrefix(secureScheme) {
            isSecure = true
        } else if !lowered.hasPrefix(scheme) {
            throw NetError(.invalidURL, "only \(scheme) and \(secureScheme) URLs are supported: \(text)")
        }
        let rest = text.dropFirst(isSecure ? secureScheme.count : scheme.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        var host = Substring(authority)
        var port = isSecure ? 443 : 80
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
