import CWebSockets

/// One HTTP request/response on a connection: the body being received, then the
/// response body being written in slices. Service thread only. A keep-alive connection
/// runs several exchanges; the server drops this one on `HTTP_DROP_PROTOCOL`.
final class HTTPExchange {
    var request: HTTPRequest
    var bodyTooLarge = false
    private var response: [UInt8] = []
    private var responseOffset = 0
    private var sendsBody = true

    init(request: HTTPRequest) { self.request = request }

    /// Writes the status line and headers, queues the body, asks for `HTTP_WRITEABLE`.
    /// Returns the callback result.
    func start(_ wsi: OpaquePointer, _ reply: HTTPResponse) -> Int32 {
        let extra = reply.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        let capacity = accord_lws_pre() + 1024 + reply.contentType.utf8.count + extra
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        let start = buffer + accord_lws_pre()
        let end = buffer + capacity - 1
        var cursor: UnsafeMutablePointer<UInt8>? = start
        if lws_add_http_common_headers(
            wsi, UInt32(reply.status), reply.contentType, lws_filepos_t(reply.body.count), &cursor, end) != 0
        {
            return -1
        }
        for header in reply.headers {
            let name = header.name.lowercased() + ":"
            let value = Array(header.value.utf8)
            let failed = name.withCString { namePointer in
                namePointer.withMemoryRebound(to: UInt8.self, capacity: name.utf8.count + 1) { nameBytes in
                    lws_add_http_header_by_name(wsi, nameBytes, value, Int32(value.count), &cursor, end) != 0
                }
            }
            if failed { return -1 }
        }
        if lws_finalize_write_http_header(wsi, start, &cursor, end) != 0 { return -1 }
        response = reply.body
        sendsBody = request.method != .head
        lws_callback_on_writable(wsi)
        return 0
    }

    /// One `HTTP_WRITEABLE`: the next slice of the body, and the end of the transaction
    /// after the last one.
    func writeNext(_ wsi: OpaquePointer) -> Int32 {
        let remaining = sendsBody ? response.count - responseOffset : 0
        if remaining > 0 {
            let count = min(remaining, 32 * 1024)
            let last = count == remaining
            let pre = accord_lws_pre()
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: pre + count)
            defer { buffer.deallocate() }
            response.withUnsafeBufferPointer { source in
                (buffer + pre).initialize(from: source.baseAddress! + responseOffset, count: count)
            }
            let written = lws_write(wsi, buffer + pre, count, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
            guard written >= count else { return -1 }
            responseOffset += count
            if !last {
                lws_callback_on_writable(wsi)
                return 0
            }
        }
        // Done: keep-alive continues with the next request, or lws asks us to close.
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension HTTPExchange: Sendable {}
