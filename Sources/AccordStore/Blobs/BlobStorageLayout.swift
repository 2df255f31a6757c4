import AccordCRDT
import Foundation

/// Where a ``BlobStore`` keeps its data in a ``StorageAdapter``. Everything goes
/// through the adapter, so sealing at rest, `wipeAll` and the in-memory adapter cover
/// blobs like documents.
///
/// - `blob.chunks`: one log per upload, keyed by a random upload id (32 hex digits);
///   entry `n` (from 1) holds bytes `(n-1)*chunkSize ..< n*chunkSize` of the content.
/// - `blob.index`: one record per blob, keyed by the hex SHA-256 of its content; it
///   names the upload whose chunks hold the content (``BlobIndexRecord``). A chunk log
///   that no index record names is an orphan (an interrupted put) and is collected.
/// - `blob.refs`: per document id, the hashes of the blobs it references.
/// - `blob.referrers`: per blob hash, the documents referencing it (the reverse of
///   `blob.refs`, kept in the same batches), so collection needs no scan of documents.
extension StorageCategory {
    static let blobChunks = StorageCategory("blob.chunks")
    static let blobIndex = StorageCategory("blob.index")
    static let blobRefs = StorageCategory("blob.refs")
    static let blobReferrers = StorageCategory("blob.referrers")
}

/// The `blob.index` record of one blob. Encoding, version 1, integers little endian:
///
///     u8 version (1) | 16 bytes upload id | u64 size | u32 chunk size |
///     i64 created (ms since 1970) | u8 content type length n | n bytes content type (ASCII)
///
/// The chunk size is recorded per blob so a store can change its tuning without
/// breaking blobs written before.
struct BlobIndexRecord: Equatable {
    static let version: UInt8 = 1
    static let uploadIDByteCount = 16
    private static let fixedByteCount = 1 + uploadIDByteCount + 8 + 4 + 8 + 1

    var uploadID: [UInt8]
    var size: UInt64
    var chunkSize: UInt32
    var createdMilliseconds: Int64
    var contentType: String

    /// The key of the upload's chunk log.
    var chunkLogKey: String { HexText.encode(uploadID) }

    /// How many chunks hold `size` bytes.
    var chunkCount: UInt64 { size == 0 ? 0 : (size - 1) / UInt64(chunkSize) + 1 }

    /// The length chunk `sequence` (from 1) must have.
    func expectedLength(ofChunk sequence: UInt64) -> Int {
        let start = (sequence - 1) * UInt64(chunkSize)
        return Int(min(UInt64(chunkSize), size - start))
    }

    func info(_ hash: BlobHash) -> BlobInfo {
        BlobInfo(
            hash: hash, size: Int64(size), contentType: contentType,
            created: Date(timeIntervalSince1970: Double(createdMilliseconds) / 1000))
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = [Self.version]
        bytes.reserveCapacity(Self.fixedByteCount + contentType.utf8.count)
        bytes += uploadID
        Self.append(size, to: &bytes)
        Self.append(chunkSize, to: &bytes)
        Self.append(UInt64(bitPattern: createdMilliseconds), to: &bytes)
        bytes.append(UInt8(contentType.utf8.count))
        bytes += contentType.utf8
        return bytes
    }

    /// Decodes and validates a stored record; anything unexpected is `STORAGE_CORRUPT`
    /// naming the blob.
    init(decoding bytes: [UInt8], blob hash: BlobHash) throws(AccordError) {
        func corrupt(_ why: String) -> AccordError {
            AccordError(.storageCorrupt, "blob \(hash) has a damaged index record: \(why)", details: ["blob": hash.hex])
        }
        guard bytes.count >= Self.fixedByteCount else { throw corrupt("\(bytes.count) bytes is too short") }
        guard bytes[0] == Self.version else { throw corrupt("unknown version \(bytes[0])") }
        var offset = 1
        uploadID = Array(bytes[offset..<offset + Self.uploadIDByteCount])
        offset += Self.uploadIDByteCount
        size = Self.readInteger(bytes, at: &offset)
        chunkSize = Self.readInteger(bytes, at: &offset)
        createdMilliseconds = Int64(bitPattern: Self.readInteger(bytes, at: &offset))
        let typeLength = Int(bytes[offset])
        offset += 1
        guard bytes.count == offset + typeLength else {
            throw corrupt("\(bytes.count) bytes where \(offset + typeLength) were expected")
        }
        guard size <= UInt64(Int64.max) else { throw corrupt("size \(size) is out of range") }
        guard chunkSize > 0 else { throw corrupt("chunk size is 0") }
        let typeBytes = bytes[offset...]
        guard BlobStore.isValidContentType(typeBytes) else { throw corrupt("the content type is not printable ASCII") }
        contentType = String(decoding: typeBytes, as: UTF8.self)
    }

    init(uploadID: [UInt8], size: UInt64, chunkSize: UInt32, createdMilliseconds: Int64, contentType: String) {
        self.uploadID = uploadID
        self.size = size
        self.chunkSize = chunkSize
        self.createdMilliseconds = createdMilliseconds
        self.contentType = contentType
    }

    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    static func readInteger<T: FixedWidthInteger>(_ bytes: [UInt8], at offset: inout Int) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size {
            value |= T(bytes[offset + index]) << (8 * index)
        }
        offset += MemoryLayout<T>.size
        return value
    }
}
