import Foundation

/// Reads an ``HTTPFileBody`` front to back on the service thread: one descriptor,
/// `pread` at the running offset, so nothing but the caller's buffer holds the bytes.
final class FileBodyReader {
    private let descriptor: Int32
    private let path: String
    private var offset: Int64
    private(set) var remaining: Int64

    init(_ body: HTTPFileBody) throws(NetError) {
        guard body.offset >= 0, body.length >= 0 else {
            throw NetError(.requestFailed, "a file body needs a non-negative offset and length")
        }
        var opened: Int32 = -1
        repeat { opened = open(body.path, O_RDONLY | O_CLOEXEC) } while opened < 0 && errno == EINTR
        guard opened >= 0 else {
            throw NetError(.requestFailed, "cannot open \(body.path): \(String(cString: strerror(errno)))")
        }
        descriptor = opened
        path = body.path
        offset = body.offset
        remaining = body.length
    }

    deinit { close(descriptor) }

    /// Fills up to `buffer.count` bytes (fewer only for the last piece); 0 when done.
    /// A file that ends before the promised length is an error: the request declared it.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(NetError) -> Int {
        let wanted = Int(min(Int64(buffer.count), remaining))
        var filled = 0
        while filled < wanted {
            let count = pread(descriptor, buffer.baseAddress! + filled, wanted - filled, off_t(offset))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = count < 0 ? String(cString: strerror(errno)) : "the file ended early"
                throw NetError(.requestFailed, "cannot read \(path) at \(offset): \(reason)")
            }
            filled += count
            offset += Int64(count)
        }
        remaining -= Int64(filled)
        return filled
    }
}
