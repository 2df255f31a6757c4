import AccordCRDT
import Foundation

/// The `blob.index` record of one blob. Two encodings, told apart by the first byte,
/// integers little endian:
///
///     version 1 (content in chunks):
///     u8 1 | 16 bytes upload id | u64 size | u32 chunk size |
///     i64 created (ms since 1970) | u8 content type length n | n bytes content type (ASCII)
///
///     version 2 (content in a file):
///     u8 2 | u8 file format (0 plain, 1 sealed) | u64 size |
///     i64 created (ms since 1970) | u8 content type length n | n bytes content type (ASCII)
///
/// Version 1 is still read and written (adapters without a ``BlobDirectory``), so blobs
/// stored before content files existed keep working. The chunk size is recorded per
/// blob so a store can change its tuning without breaking blobs written before.
struct BlobIndexRecord: Equatable {
    /// Where the content is.
    enum Content: Equatable {
        /// The chunk log of upload `uploadID` in `blob.chunks`.
        case chunks(uploadID: [UInt8], chunkSize: UInt32)
        /// The content file named by the hash, plain or sealed.
        case file(sealed: Bool)
    }

    static let chunksVersion: UInt8 = 1
    static let fileVersion: UInt8 = 2
    static let uploadIDByteCount = 16

    var content: Content
    var size: UInt64
    var createdMilliseconds: Int64
    var contentType: String

    /// The key of the upload's chunk log, for content in chunks.
    var chunkLogKey: String? {
        guard case .chunks(let uploadID, _) = content else { return nil }
        return HexText.encode(uploadID)
    }

    var isFile: Bool {
        if case .file = content { return true }
        return false
    }

    func info(_ hash: BlobHash) -> BlobInfo {
        BlobInfo(
            hash: hash, size: Int64(size), contentType: contentType,
            created: Date(timeIntervalSince1970: Double(createdMilliseconds) / 1000))
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8]
        switch content {
        case .chunks(let uploadID, let chunkSize):
            bytes = [Self.chunksVersion] + uploadID
            Self.append(size, to: &bytes)
            Self.append(chunkSize, to: &bytes)
        case .file(let sealed):
            bytes = [Self.fileVersion, sealed ? 1 : 0]
            Self.append(size, to: &bytes)
        }
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
        // The shortest record of each version: everything but the content type.
        let fixed: Int
        switch bytes.first {
        case Self.chunksVersion: fixed = 1 + Self.uploadIDByteCount + 8 + 4 + 8 + 1
        case Self.fileVersion: fixed = 1 + 1 + 8 + 8 + 1
        case nil: throw corrupt("it is empty")
        case let version?: throw corrupt("unknown version \(version)")
        }
        guard bytes.count >= fixed else { throw corrupt("\(bytes.count) bytes is too short") }
        var offset = 1
        if bytes[0] == Self.chunksVersion {
            let uploadID = Array(bytes[offset..<offset + Self.uploadIDByteCount])
            offset += Self.uploadIDByteCount
            size = Self.readInteger(bytes, at: &offset)
            let chunkSize: UInt32 = Self.readInteger(bytes, at: &offset)
            guard chunkSize > 0 else { throw corrupt("chunk size is 0") }
            content = .chunks(uploadID: uploadID, chunkSize: chunkSize)
        } else {
            let format = bytes[offset]
            offset += 1
            guard format <= 1 else { throw corrupt("unknown file format \(format)") }
            content = .file(sealed: format == 1)
            size = Self.readInteger(bytes, at: &offset)
        }
        createdMilliseconds = Int64(bitPattern: Self.readInteger(bytes, at: &offset))
        let typeLength = Int(bytes[offset])
        offset += 1
        guard bytes.count == offset + typeLength else {
            throw corrupt("\(bytes.count) bytes where \(offset + typeLength) were expected")
        }
        guard size <= UInt64(Int64.max) else { throw corrupt("size \(size) is out of range") }
        let typeBytes = bytes[offset...]
        guard BlobStore.isValidContentType(typeBytes) else { throw corrupt("the content type is not printable ASCII") }
        contentType = String(decoding: typeBytes, as: UTF8.self)
    }

    init(content: Content, size: UInt64, createdMilliseconds: Int64, contentType: String) {
        self.content = content
        self.size = size
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

extension BlobIndexRecord {
    /// The chunk size and count, for content in chunks.
    var chunkLayout: (chunkSize: UInt32, count: UInt64)? {
        guard case .chunks(_, let chunkSize) = content else { return nil }
        return (chunkSize, size == 0 ? 0 : (size - 1) / UInt64(chunkSize) + 1)
    }
}
