/// The parsed request line and headers of one HTTP/1.x request, before its body.
struct RequestHead {
    var request: HTTPRequest
    /// Content-Length (0 when absent).
    var bodyLength: Int
    /// The connection must close after the response (`Connection: close`, or HTTP/1.0
    /// without `keep-alive`).
    var closeAfter: Bool
    /// A WebSocket upgrade (validated: GET, key, version 13, no body).
    var isUpgrade: Bool
    /// An upload route claims it: its body streams to a sink, with no body limit here
    /// (the route refuses oversized uploads from the length itself).
    var isStreamed = false

    /// The methods routes can have. CONNECT (which lws turned into a raw tunnel that
    /// never timed out), TRACE and unknown methods are refused with 501.
    static let supportedMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    enum Parse {
        case incomplete
        /// `length` bytes (through the empty line) form the head.
        case complete(RequestHead, length: Int)
        case refused(HTTPRefusal)
    }

    /// Parses the head at the start of `bytes` (RFC 9112 §2-§6, strictly: CRLF or LF
    /// line ends, no obsolete line folding, no whitespace before a header's colon).
    static func parse(
        _ bytes: ArraySlice<UInt8>, maxHeaderBytes: Int, maxBodyBytes: Int,
        isStreamed: (HTTPMethod, String) -> Bool = { _, _ in false }
    ) -> Parse {
        var start = bytes.startIndex
        // RFC 9112 §2.2: ignore empty lines before the request line (keep-alive clients send them).
        while start < bytes.endIndex, bytes[start] == 13 || bytes[start] == 10, start - bytes.startIndex < 8 { start += 1 }
        guard let end = headEnd(bytes[start...]) else {
            return bytes.count > maxHeaderBytes ? .refused(.headersTooLarge(maxHeaderBytes)) : .incomplete
        }
        guard end - bytes.startIndex <= maxHeaderBytes else { return .refused(.headersTooLarge(maxHeaderBytes)) }
        var lines = bytes[start..<end].split(separator: 10, omittingEmptySubsequences: false).map { line in
            line.last == 13 ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { return .refused(.malformed("empty request")) }
        switch parseHead(
            requestLine: requestLine, headerLines: lines.dropFirst(), maxBodyBytes: maxBodyBytes, isStreamed: isStreamed)
        {
        case .success(let head): return .complete(head, length: end - bytes.startIndex)
        case .failure(let refusal): return .refused(refusal)
        }
    }

    /// The index just past the empty line that ends the head, if it has arrived.
    private static func headEnd(_ bytes: ArraySlice<UInt8>) -> Int? {
        var index = bytes.startIndex
        while let newline = bytes[index...].firstIndex(of: 10) {
            let next = newline + 1
            if next < bytes.endIndex, bytes[next] == 10 { return next + 1 }
            if next + 1 < bytes.endIndex, bytes[next] == 13, bytes[next + 1] == 10 { return next + 2 }
            index = next
        }
        return nil
    }

    private static func parseHead(
        requestLine: ArraySlice<UInt8>, headerLines: ArraySlice<ArraySlice<UInt8>>, maxBodyBytes: Int,
        isStreamed: (HTTPMethod, String) -> Bool
    ) -> Result<RequestHead, HTTPRefusal> {
        let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else {
            return .failure(.malformed("request line is not 'METHOD target HTTP/1.1'"))
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .failure(version.hasPrefix("HTTP/") ? .versionNotSupported : .malformed("bad HTTP version"))
        }
        guard supportedMethods.contains(method) else { return .failure(.methodNotSupported(method)) }
        guard let target = RequestTarget.parse(parts[1]) else {
            return .failure(.malformed("the request path is not validly percent-encoded UTF-8 without control characters"))
        }

        var headers: [String: String] = [:]
        for line in headerLines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                line[..<colon].allSatisfy(isTokenByte)
            else { return .failure(.malformed("malformed header line")) }
            let valueBytes = line[(colon + 1)...]
            guard !valueBytes.contains(where: { ($0 < 0x20 && $0 != 9) || $0 == 0x7F }) else {
                return .failure(.malformed("control character in a header value"))
            }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: valueBytes, as: UTF8.self).trimmingSpaces
            if let previous = headers[name] {
                // Two lengths or hosts are how requests get smuggled past proxies.
                if name == "content-length" || name == "host" {
                    return .failure(.malformed("duplicate \(name) header"))
                }
                headers[name] = previous + ", " + value
            } else {
                headers[name] = value
            }
        }

        if headers["transfer-encoding"] != nil { return .failure(.lengthRequired) }
        let streamed = isStreamed(HTTPMethod(rawValue: method), target.path)
        // An upload route sets its own limit; 18 digits keep the length in an Int.
        let maxBodyBytes = streamed ? Int.max : maxBodyBytes
        var bodyLength = 0
        if let length = headers["content-length"] {
            guard !length.isEmpty, length.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return .failure(.malformed("Content-Length is not a number"))
            }
            guard length.utf8.count <= 18, let value = Int(length), value <= maxBodyBytes else {
                return .failure(.bodyTooLarge(maxBodyBytes))
            }
            bodyLength = value
        }

        let connection = Set((headers["connection"] ?? "").lowercased().split(separator: ",").map { $0.trimmingSpaces })
        let closeAfter = version == "HTTP/1.0" ? !connection.contains("keep-alive") : connection.contains("close")
        var isUpgrade = false
        if let upgrade = headers["upgrade"], upgrade.lowercased().split(separator: ",").contains(where: { $0.trimmingSpaces == "websocket" }) {
            guard method == "GET", version == "HTTP/1.1", bodyLength == 0, connection.contains("upgrade"),
                headers["sec-websocket-key"]?.isEmpty == false, headers["sec-websocket-version"] == "13"
            else { return .failure(.malformed("invalid WebSocket upgrade request")) }
            isUpgrade = true
        }
        let request = HTTPRequest(
            method: HTTPMethod(rawValue: method), path: target.path, query: target.query, headers: headers,
            target: String(decoding: parts[1], as: UTF8.self))
        return .success(
            RequestHead(
                request: request, bodyLength: bodyLength, closeAfter: closeAfter, isUpgrade: isUpgrade,
                isStreamed: streamed && !isUpgrade))
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
