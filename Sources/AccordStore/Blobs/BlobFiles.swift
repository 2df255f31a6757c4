import AccordCRDT
import Foundation

/// Reads a file in fixed-size pieces for a streaming put. Any failure to open or read
/// is `IO_ERROR` naming the path.
struct BlobFileReader {
    private let handle: FileHandle
    let path: String

    init(path: String) throws(AccordError) {
        self.path = path
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw BlobFiles.ioError("cannot open \(path) for reading", path: path, error)
        }
    }

    /// The next `count` bytes, fewer only at the end of the file, or nil at the end.
    /// Loops because one read may return less than asked (pipes, network file systems),
    /// and chunks must be full-sized except the last.
    func next(_ count: Int) throws(AccordError) -> [UInt8]? {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(count)
        while chunk.count < count {
            let data: Data?
            do {
                data = try handle.read(upToCount: count - chunk.count)
            } catch {
                throw BlobFiles.ioError("cannot read \(path)", path: path, error)
            }
            guard let data, !data.isEmpty else { break }
            chunk += data
        }
        return chunk.isEmpty ? nil : chunk
    }

    func close() { try? handle.close() }
}

/// Writes a blob to a temporary file beside the destination and renames it into place
/// only once the content is verified and synced, so a failed read leaves nothing at
/// the destination and a crash never leaves half a file there.
struct BlobFileWriter {
    private let handle: FileHandle
    let temporaryPath: String
    let destination: String

    init(destination: String) throws(AccordError) {
        self.destination = destination
        let url = URL(fileURLWithPath: destination)
        let directory = url.deletingLastPathComponent().path
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        temporaryPath = "\(directory)/.\(url.lastPathComponent).\(suffix).accord-tmp"
        // O_EXCL: never write through a file or link someone else put there.
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            throw BlobFiles.ioError(
                "cannot create a file beside \(destination): \(String(cString: strerror(errno)))",
                path: destination, nil)
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    func write(_ bytes: [UInt8]) throws(AccordError) {
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw BlobFiles.ioError("cannot write beside \(destination)", path: destination, error)
        }
    }

    /// Syncs (fsync) and renames the file into place, replacing any file there.
    func commit() throws(AccordError) {
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            discard()
            throw BlobFiles.ioError("cannot sync \(temporaryPath)", path: destination, error)
        }
        guard rename(temporaryPath, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw BlobFiles.ioError("cannot move the blob into \(destination): \(reason)", path: destination, nil)
        }
    }

    /// Removes the temporary file (after a failure).
    func discard() {
        try? handle.close()
        unlink(temporaryPath)
    }
}

enum BlobFiles {
    static func ioError(_ message: String, path: String, _ cause: (any Error)?) -> AccordError {
        var text = message
        if let cause { text += ": \(cause.localizedDescription)" }
        return AccordError(.ioError, text, details: ["path": path])
    }
}
