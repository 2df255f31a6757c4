/// A request body read from a file as it is sent: `length` bytes from `offset` (so an
/// interrupted upload continues where the server's copy ends), through one buffer,
/// whatever the file's size. A file that cannot be opened or read, or that ends early,
/// ends the request with `NET_REQUEST_FAILED`.
public struct HTTPFileBody: Sendable {
    public var path: String
    public var offset: Int64
    public var length: Int64
    /// Told the body bytes handed to the socket so far (from this request's first
    /// byte, not the file's), on the client's service thread, about every 1 MiB and
    /// at the end. Keep it short: the thread carries every request of the client.
    public var progress: (@Sendable (Int64) -> Void)?

    public init(path: String, offset: Int64 = 0, length: Int64, progress: (@Sendable (Int64) -> Void)? = nil) {
        self.path = path
        self.offset = offset
        self.length = length
        self.progress = progress
    }
}

/// Where a streamed response body goes, piece by piece, on the client's service thread
/// (so at most one piece is in memory; the socket is read only as fast as the sink
/// takes pieces). Calls for one request never overlap.
public protocol HTTPResponseSink: AnyObject, Sendable {
    /// Called once, with the status and the headers, before any body byte. False has
    /// the body buffered into ``HTTPClientResponse/body`` instead (up to the client's
    /// `maxResponseSize`), for answers such as an error's JSON.
    func accepts(status: Int, headers: [String: String]) -> Bool
    /// One piece of the body. Throwing ends the request with that error and closes
    /// the connection.
    func write(_ bytes: UnsafeRawBufferPointer) throws(NetError)
}
