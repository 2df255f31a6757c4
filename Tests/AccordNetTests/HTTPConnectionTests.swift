import Testing

@testable import AccordNet

/// The request framing state machine without sockets.
struct HTTPConnectionTests {
    private func feed(
        _ text: String, maxHeaderBytes: Int = 1024, maxBodyBytes: Int = 100,
        isStreamed: @escaping (HTTPMethod, String) -> Bool = { _, _ in false }
    ) -> [String] {
        var connection = HTTPConnection(maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes, isStreamed: isStreamed)
        Array(text.utf8).withUnsafeBytes { connection.receive($0) }
        var steps: [String] = []
        loop: while true {
            switch connection.next() {
            case .needMore: steps.append("more"); break loop
            case .request(let request, let closeAfter):
                steps.append("\(request.method) \(request.path) [\(String(decoding: request.body, as: UTF8.self))]\(closeAfter ? " close" : "")")
            case .streamedRequest(let request, let bodyLength, _):
                // The driver takes the body bytes as they come; here all came at once.
                let body = connection.takeBuffered(max: bodyLength)
                steps.append("stream \(request.method) \(request.path) \(bodyLength) [\(String(decoding: body, as: UTF8.self))]")
                if body.count < bodyLength { break loop }
            case .upgrade(let request, let bytes): steps.append("upgrade \(request.path) \(bytes.count)"); break loop
            case .refuse(let refusal): steps.append("\(refusal.status) \(refusal.code)"); break loop
            }
        }
        return steps
    }

    @Test func pipelinedRequestsComeOutOnceEachInOrder() {
        let text = "PUT /a HTTP/1.1\r\nContent-Length: 1\r\n\r\nxPOST /b HTTP/1.1\r\nContent-Length: 0\r\n\r\nGET /c HTTP/1.0\r\n\r\n"
        #expect(feed(text) == ["PUT /a [x]", "POST /b []", "GET /c [] close", "more"])
    }

    @Test func streamedBodiesSkipTheBodyLimitAndLeaveTheNextRequestIntact() {
        let streamed: (HTTPMethod, String) -> Bool = { method, path in method == .put && path == "/blob" }
        // 1000 bytes pass a 100-byte limit only on the upload route; the request after it parses as usual.
        let body = String(repeating: "b", count: 1000)
        let text = "PUT /blob HTTP/1.1\r\nContent-Length: 1000\r\n\r\n\(body)GET /c HTTP/1.1\r\n\r\n"
        #expect(feed(text, isStreamed: streamed) == ["stream PUT /blob 1000 [\(body)]", "GET /c []", "more"])
        #expect(feed("PUT /other HTTP/1.1\r\nContent-Length: 1000\r\n\r\n", isStreamed: streamed) == ["413 BODY_TOO_LARGE"])
        // The head alone is handed out: the route decides before any body byte arrived.
        #expect(feed("PUT /blob HTTP/1.1\r\nContent-Length: 5000000000\r\n\r\n", isStreamed: streamed)
            == ["stream PUT /blob 5000000000 []"])
    }

    @Test func bodyWaitsForAllItsBytes() {
        #expect(feed("POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nabc") == ["more"])
    }

    @Test func refusals() {
        #expect(feed("CONNECT x:1 HTTP/1.1\r\n\r\n") == ["501 METHOD_NOT_SUPPORTED"])
        #expect(feed("POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == ["411 LENGTH_REQUIRED"])
        #expect(feed("POST /a HTTP/1.1\r\nContent-Length: 101\r\n\r\n") == ["413 BODY_TOO_LARGE"])
        #expect(feed("POST /a HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n") == ["413 BODY_TOO_LARGE"])
        #expect(feed("GET /a HTTP/1.1\r\nX: " + String(repeating: "y", count: 2000)) == ["431 HEADERS_TOO_LARGE"])
        #expect(feed("GET /a HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") == ["400 MALFORMED_REQUEST"])
        #expect(feed("GET /a HTTP/1.1\r\nX : y\r\n\r\n") == ["400 MALFORMED_REQUEST"])
        #expect(feed("GET /a HTTP/1.1\r\nX: y\r\n folded\r\n\r\n") == ["400 MALFORMED_REQUEST"])
        #expect(feed("GET /a HTTP/2.0\r\n\r\n") == ["505 HTTP_VERSION_NOT_SUPPORTED"])
        #expect(feed("GET  /a HTTP/1.1\r\n\r\n") == ["400 MALFORMED_REQUEST"])
        #expect(feed("GET /a HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n") == ["400 MALFORMED_REQUEST"])
    }

    /// The server frames the WebSocket itself: it gets what followed the head.
    @Test func upgradeKeepsWhatFollowsItsHead() {
        let head = "GET /v1/sync/x/../y HTTP/1.1\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Key: k\r\nSec-WebSocket-Version: 13\r\n\r\n"
        #expect(feed(head + "FRAMES") == ["upgrade /v1/sync/x/../y 6"])
    }

    @Test func targetsDecodeStrictly() {
        func path(_ target: String) -> String? { RequestTarget.parse(Array(target.utf8)[...])?.path }
        #expect(path("/a/../b") == "/a/../b")
        #expect(path("/a+b%2B%20") == "/a+b+ ")
        #expect(path("/caf%c3%a9") == "/café")
        #expect(path("/abc%0adef") == nil)
        #expect(path("/%c3") == nil)
        #expect(path("/%g0") == nil)
        #expect(path("/a%") == nil)
        #expect(path("/a#b") == nil)
        #expect(path("*") == nil)
        #expect(path("http://x/a") == nil)
        #expect(RequestTarget.parse(Array("/q?a=1+2&b&c=%26".utf8)[...])?.query
            == [QueryItem(name: "a", value: "1 2"), QueryItem(name: "b", value: ""), QueryItem(name: "c", value: "&")])
    }
}
