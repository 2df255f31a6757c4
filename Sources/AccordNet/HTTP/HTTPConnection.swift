/// The request side of one HTTP/1.1 connection as a pure state machine: bytes in,
/// whole requests out, one at a time and in order. The driver answers a request before
/// asking for the next, so pipelined requests (several in one segment) are answered in
/// order and none is answered twice.
struct HTTPConnection {
    enum Step {
        /// The next request is not complete yet.
        case needMore
        /// A complete request with its body; `closeAfter` when the connection must
        /// close after the response.
        case request(HTTPRequest, closeAfter: Bool)
        /// The head of a request an upload route streams: its `bodyLength` bytes follow
        /// (``takeBuffered(max:)`` hands out those already received); the driver feeds
        /// them to the route's sink and only then asks for the next request.
        case streamedRequest(HTTPRequest, bodyLength: Int, closeAfter: Bool)
        /// A valid WebSocket upgrade request; `bytes` are every byte received after
        /// its head (frames a client sent without waiting for the 101).
        case upgrade(HTTPRequest, bytes: [UInt8])
        /// Answer with the refusal and close.
        case refuse(HTTPRefusal)
    }

    let maxHeaderBytes: Int
    let maxBodyBytes: Int
    /// Whether an upload route claims a method and path (see `HTTPRoutes.addUpload`).
    let isStreamed: (HTTPMethod, String) -> Bool
    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already handed out as requests.
    private var consumed = 0
    /// A head whose body is still arriving.
    private var pending: RequestHead?

    init(maxHeaderBytes: Int, maxBodyBytes: Int, isStreamed: @escaping (HTTPMethod, String) -> Bool = { _, _ in false }) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.isStreamed = isStreamed
    }

    /// Received bytes not yet handed out as requests.
    var bufferedCount: Int { buffer.count - consumed }
    /// A head arrived and its body has not.
    var isReadingBody: Bool { pending != nil }

    mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        if consumed > 0, consumed == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            consumed = 0
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func next() -> Step {
        if pending == nil {
            switch RequestHead.parse(
                buffer[consumed...], maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes, isStreamed: isStreamed)
            {
            case .incomplete: return .needMore
            case .refused(let refusal): return .refuse(refusal)
            case .complete(let head, let length):
                if head.isUpgrade {
                    let bytes = Array(buffer[(consumed + length)...])
                    consumed = buffer.count
                    return .upgrade(head.request, bytes: bytes)
                }
                consumed += length
                if head.isStreamed {
                    return .streamedRequest(head.request, bodyLength: head.bodyLength, closeAfter: head.closeAfter)
                }
                pending = head
            }
        }
        guard let head = pending, bufferedCount >= head.bodyLength else { return .needMore }
        var request = head.request
        request.body = Array(buffer[consumed..<(consumed + head.bodyLength)])
        consumed += head.bodyLength
        pending = nil
        compact()
        return .request(request, closeAfter: head.closeAfter)
    }

    /// Takes up to `max` received bytes (the start of a streamed body that arrived with
    /// its head), so they are handed out once.
    mutating func takeBuffered(max: Int) -> [UInt8] {
        let count = min(max, bufferedCount)
        let bytes = Array(buffer[consumed..<(consumed + count)])
        consumed += count
        compact()
        return bytes
    }

    /// Drops handed-out bytes once they dominate the buffer, so a long keep-alive
    /// connection does not keep every request it ever sent.
    private mutating func compact() {
        if consumed > 4096, consumed * 2 > buffer.count {
            buffer.removeFirst(consumed)
            consumed = 0
        }
    }
}
