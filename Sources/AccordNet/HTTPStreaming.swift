/// A response body produced piece by piece while it is sent, so a large body (a blob
/// file) never sits in memory whole. The HTTP front asks for the next piece only when
/// the socket can take more (lws' writable callback), so a slow reader slows the
/// reads instead of growing a queue.
///
/// Used on the server's service thread only (hence `@unchecked Sendable` in
/// implementations is fine as long as they are not shared across threads).
public protocol HTTPBodyStream: AnyObject, Sendable {
    /// Bytes the body has in all: the response's `content-length`.
    var length: Int { get }
    /// Fills the start of `buffer` with the next bytes and returns their count, more
    /// than 0 until `length` bytes were produced. Throwing (or returning 0 early)
    /// closes the connection without the rest of the body, so the client sees a body
    /// shorter than its `content-length` and never takes it for a whole one.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// A request body consumed piece by piece as it arrives (a blob upload), instead of
/// being buffered whole. The front reads the socket only while the sink is not busy
/// (each piece is handed over inside the receive callback), so a slow sink slows the
/// sender (TCP backpressure) and memory stays at one receive buffer.
///
/// Called on the server's service thread only.
public protocol HTTPBodySink: AnyObject, Sendable {
    /// The next bytes of the body. A response ends the request early: the rest of the
    /// body is not read, the connection closes after the response, and no other call
    /// follows (the sink cleans up before returning it).
    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse?
    /// Every byte the request's `Content-Length` announced arrived.
    func finish() -> HTTPResponse
    /// The connection ended (closed, cut, timed out) before the whole body arrived.
    func abort()
}

/// What an upload route makes of a request head, before any of its body is read.
public enum HTTPUploadDecision: Sendable {
    /// Answer now without reading the body (a refusal); when a body was announced the
    /// connection closes after the response, so its bytes are never taken as a request.
    case respond(HTTPResponse)
    /// Hand the body to the sink as it arrives.
    case stream(any HTTPBodySink)
}
