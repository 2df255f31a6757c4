import AccordCRDT
import AccordNet
import AccordStore

/// The body of a whole-blob `PUT` of new content no larger than the store's inline
/// limit (``BlobStore/Tuning/inlineLimit``): held in memory (at most that limit, known
/// from the head), hashed once it is complete, and stored with one commit that holds
/// the content, its index record and the document's reference.
///
/// Why not the resumable path: it commits an upload record, writes and syncs a partial
/// file, renames it, syncs the directory and commits twice more, several milliseconds
/// of syncs for a few kilobytes that one request carries anyway. Nothing of a small
/// upload cut short is kept, so `HEAD` reports offset 0 and the client sends it again.
final class SmallBlobUploadSink: HTTPBodySink, @unchecked Sendable {
    // @unchecked: used on the service thread only.
    private let blobs: ServerBlobs
    private let key: String
    private let hash: BlobHash
    private let document: DocumentID
    private let contentType: String
    private let total: Int
    private var received: [UInt8] = []
    private var ended = false

    /// `total` is the request's `Content-Length`, already checked to be at most the
    /// inline limit, so `received` never grows past it.
    init(blobs: ServerBlobs, key: String, hash: BlobHash, document: DocumentID, contentType: String, total: Int) {
        self.blobs = blobs
        self.key = key
        self.hash = hash
        self.document = document
        self.contentType = contentType
        self.total = total
        received.reserveCapacity(total)
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse? {
        guard received.count + bytes.count <= total else {
            // The HTTP layer stops at the Content-Length; this guards the bound anyway.
            end()
            return RESTError.response(AccordError(.invalidArgument, "the body is longer than its Content-Length"))
        }
        received.append(contentsOf: bytes)
        return nil
    }

    func finish() -> HTTPResponse {
        defer { end() }
        do throws(AccordError) {
            var hasher = try SHA256Hasher()
            hasher.update(received)
            let digest = hasher.finish()
            guard received.count == total, digest == hash else {
                throw AccordError(
                    .blobHashMismatch, "the uploaded bytes hash to \(digest.hex), not \(hash.hex); nothing was kept",
                    details: ["blob": hash.hex, "received": digest.hex])
            }
            let existed = try blobs.store.exists(hash)
            let info = try blobs.store.put(received, contentType: contentType, referencedBy: document)
            // An unfinished upload of the same blob (sent in parts before) is done now.
            if let unfinished = try blobs.uploadRecord(key) { try blobs.discardUpload(key, unfinished) }
            return RESTJSON.response(status: existed ? 200 : 201, BlobInfoBody(info))
        } catch {
            return RESTError.response(error)
        }
    }

    func abort() {
        end()
    }

    private func end() {
        guard !ended else { return }
        ended = true
        received = []
        blobs.releaseSmallUpload(key)
        blobs.endStreaming(key)
    }
}
