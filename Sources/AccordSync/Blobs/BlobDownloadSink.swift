import AccordCRDT
import AccordNet
import AccordStore

/// Takes a blob download's body as it arrives, straight into a ``BlobWriter`` (the
/// store's upload file, hashed on the way), so a download of any size holds one piece
/// in memory and is never read back before it is verified.
final class BlobDownloadSink: HTTPResponseSink, @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `writer` and `failure` are used by the
    // HTTP client's service thread while the request runs (one call at a time), and
    // by the caller only after `send` returned, which happens after the last call.
    let writer: BlobWriter
    private(set) var failure: AccordError?

    init(writer: BlobWriter) {
        self.writer = writer
    }

    func accepts(status: Int, headers: [String: String]) -> Bool { status == 200 }

    func write(_ bytes: UnsafeRawBufferPointer) throws(NetError) {
        do throws(AccordError) {
            try writer.write(bytes)
        } catch {
            failure = error
            throw NetError(.requestFailed, "storing the download failed: \(error.message)")
        }
    }
}
