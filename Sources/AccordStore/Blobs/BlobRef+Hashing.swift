public import AccordCRDT
public import Foundation

/// The attachment value's constructors that compute the hash: the engine has no
/// SHA-256, the store does.
extension BlobRef {
    /// The attachment value of `data` (hashed now).
    /// - Throws: `INVALID_ARGUMENT` for a content type that is not 1 to 255 printable
    ///   ASCII characters.
    public init(contentType: String, data: [UInt8], name: String? = nil) throws(AccordError) {
        var hasher = try SHA256Hasher()
        hasher.update(data)
        try self.init(hash: hasher.finish().hex, size: Int64(data.count), contentType: contentType, name: name)
    }

    /// The attachment value of a file's content, hashed as it streams through one
    /// buffer of 1 MiB, whatever the file's size.
    /// - Throws: `IO_ERROR` (unreadable file, with `details["path"]`), `INVALID_ARGUMENT`.
    public init(contentType: String, fileURL: URL, name: String? = nil) throws(AccordError) {
        let (hash, size) = try Self.hashFile(fileURL.path)
        try self.init(hash: hash.hex, size: size, contentType: contentType, name: name ?? fileURL.lastPathComponent)
    }

    /// The hash of this attachment as the blob store names it.
    public var blobHash: BlobHash {
        // The initializers accept only 64 hex digits.
        try! BlobHash(hex: hash)
    }

    /// The SHA-256 and size of a file's content, streamed.
    static func hashFile(_ path: String) throws(AccordError) -> (BlobHash, Int64) {
        let source: PosixFile
        do throws(PosixFile.Failure) {
            source = try PosixFile(path: path, flags: O_RDONLY)
        } catch {
            throw error.accordError(.ioError, "cannot open \(path) for reading", path: path)
        }
        var hasher = try SHA256Hasher()
        var size: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = try buffer.withMutableBytes { (raw) throws(AccordError) -> Int in
                let count: Int
                do throws(PosixFile.Failure) {
                    count = try source.readFully(into: raw)
                } catch {
                    throw error.accordError(.ioError, "cannot read \(path)", path: path)
                }
                hasher.update(UnsafeRawBufferPointer(rebasing: raw[..<count]))
                return count
            }
            guard count > 0 else { break }
            size += Int64(count)
        }
        return (hasher.finish(), size)
    }
}
