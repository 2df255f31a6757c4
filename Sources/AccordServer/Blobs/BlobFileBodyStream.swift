import AccordCRDT
import AccordNet
import AccordStore

/// The body of a blob `GET`: bytes `start ..< end` of the content file, read a slice
/// at a time as the socket takes them.
///
/// A whole-blob body is also hashed as it goes, and its last slice is held back until
/// the hash matched: content changed on disk after the check that preceded the
/// response (see ``BlobsAPI``) ends the connection short of the `content-length`, so
/// a client never receives a complete wrong body.
final class BlobFileBodyStream: HTTPBodyStream, @unchecked Sendable {
    // @unchecked: used on the service thread only.
    let length: Int
    private let reader: BlobContentReader
    private let start: Int64
    private var position: Int64
    private var hasher: SHA256Hasher?
    private let onCorrupt: () -> Void

    init(reader: BlobContentReader, start: Int64, end: Int64, onCorrupt: @escaping () -> Void) throws(AccordError) {
        self.reader = reader
        self.start = start
        self.position = start
        self.length = Int(end - start)
        self.onCorrupt = onCorrupt
        let whole = start == 0 && end == reader.info.size
        hasher = whole ? try SHA256Hasher() : nil
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let left = start + Int64(length) - position
        let want = Int(min(Int64(buffer.count), left))
        guard want > 0 else { return 0 }
        let count: Int
        do throws(AccordError) {
            count = try reader.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<want]))
        } catch {
            onCorrupt()
            throw error
        }
        guard count == want else {
            onCorrupt()
            throw AccordError(.storageCorrupt, "blob \(reader.info.hash) ended early while being sent")
        }
        position += Int64(count)
        if hasher != nil {
            hasher!.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            if position == start + Int64(length), hasher!.finish() != reader.info.hash {
                onCorrupt()
                throw AccordError(.storageCorrupt, "blob \(reader.info.hash) changed on disk while being sent")
            }
        }
        return count
    }
}
