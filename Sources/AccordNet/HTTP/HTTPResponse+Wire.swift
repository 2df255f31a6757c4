extension HTTPResponse {
    /// The response as HTTP/1.1 bytes. `omitBody` for HEAD (the length still says how
    /// long the body would be); `close` adds `connection: close`.
    func wireBytes(omitBody: Bool, close: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        head += "content-type: \(Self.clean(contentType))\r\n"
        head += "content-length: \(bodyLength)\r\n"
        for header in headers where !Self.framingHeaders.contains(header.name.lowercased()) {
            head += "\(Self.clean(header.name).lowercased()): \(Self.clean(header.value))\r\n"
        }
        if close { head += "connection: close\r\n" }
        head += "\r\n"
        // A streamed body follows from its stream (HTTPFront), not from here.
        return omitBody || bodyStream != nil ? Array(head.utf8) : Array(head.utf8) + body
    }

    /// Framing is ours: a route's own length or connection header would desynchronise
    /// the client.
    private static let framingHeaders: Set<String> = ["content-length", "transfer-encoding", "connection", "content-type"]

    /// Without CR, LF and other controls, so no value can start a header or a response.
    private static func clean(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 416: "Range Not Satisfiable"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
