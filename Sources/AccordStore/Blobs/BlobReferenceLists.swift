import AccordCRDT
import Foundation

/// Encodings of the two halves of the reference index (see ``StorageCategory/blobRefs``).
/// Both hold sorted sets, so equal sets always encode to equal bytes, and an empty set
/// is stored as no record at all.
///
/// Document ids are handled as UTF-8 bytes, not `String`s: Swift's `String` equality
/// merges canonically equivalent text ("é" and "e" + U+0301), while storage keys, and
/// so document ids, are compared byte for byte.
enum BlobReferenceLists {
    static let version: UInt8 = 1

    /// `blob.refs` value, version 1: `u8 version | 32 bytes per hash`, ascending.
    static func encodeHashes(_ hashes: Set<BlobHash>) -> [UInt8] {
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(1 + hashes.count * BlobHash.byteCount)
        for hash in hashes.sorted() { bytes += hash.bytes }
        return bytes
    }

    static func decodeHashes(_ bytes: [UInt8], document: String) throws(AccordError) -> Set<BlobHash> {
        guard bytes.first == version, (bytes.count - 1) % BlobHash.byteCount == 0 else {
            throw AccordError(
                .storageCorrupt, "the blob references of document \(document) are damaged",
                details: ["document": document])
        }
        var hashes = Set<BlobHash>()
        for start in stride(from: 1, to: bytes.count, by: BlobHash.byteCount) {
            hashes.insert(BlobHash(validatedBytes: Array(bytes[start..<start + BlobHash.byteCount])))
        }
        return hashes
    }

    /// The hashes of a `blob.refs` value in ascending order, without building a set
    /// (a quota check reads every list of an owner before each upload). A list that is
    /// not strictly ascending (damaged, yet well formed) is sorted and deduplicated.
    static func decodeHashList(_ bytes: [UInt8], document: String) throws(AccordError) -> [BlobHash] {
        guard bytes.first == version, (bytes.count - 1) % BlobHash.byteCount == 0 else {
            _ = try decodeHashes(bytes, document: document)  // throws STORAGE_CORRUPT
            return []
        }
        var hashes: [BlobHash] = []
        hashes.reserveCapacity((bytes.count - 1) / BlobHash.byteCount)
        for start in stride(from: 1, to: bytes.count, by: BlobHash.byteCount) {
            let hash = BlobHash(validatedBytes: Array(bytes[start..<start + BlobHash.byteCount]))
            if let last = hashes.last, !(last < hash) {
                return try decodeHashes(bytes, document: document).sorted()
            }
            hashes.append(hash)
        }
        return hashes
    }

    /// `encoded` (a `blob.refs` value, or nil for none) with `hash` added in its sorted
    /// place; nil when it holds `hash` already. Works on the bytes: decoding the whole
    /// set, sorting and encoding it again made each added reference cost in proportion
    /// to the references before it, times a logarithm and a hash per entry, which turned
    /// a thousand small uploads into a quadratic amount of work. Damaged or unsorted
    /// lists go the decoding way (which throws, or sorts them).
    static func addingHash(_ hash: BlobHash, to encoded: [UInt8]?, document: String) throws(AccordError) -> [UInt8]? {
        guard let encoded else { return encodeHashes([hash]) }
        let width = BlobHash.byteCount
        guard encoded.first == version, (encoded.count - 1) % width == 0 else {
            _ = try decodeHashes(encoded, document: document)  // throws STORAGE_CORRUPT
            return nil
        }
        let count = (encoded.count - 1) / width
        // One pass: where the hash goes, whether it is there, whether the list is sorted.
        var insertAt = count
        var sorted = true
        encoded.withUnsafeBytes { raw in
            hash.bytes.withUnsafeBytes { key in
                var previous: UnsafeRawPointer?
                for index in 0..<count {
                    let entry = raw.baseAddress! + 1 + index * width
                    if let previous, memcmp(previous, entry, width) >= 0 { sorted = false }
                    previous = entry
                    if insertAt == count, memcmp(key.baseAddress!, entry, width) <= 0 { insertAt = index }
                }
            }
        }
        guard sorted else {
            var hashes = try decodeHashes(encoded, document: document)
            return hashes.insert(hash).inserted ? encodeHashes(hashes) : nil
        }
        let position = 1 + insertAt * width
        if insertAt < count, encoded[position..<position + width].elementsEqual(hash.bytes) { return nil }
        var result = encoded
        result.insert(contentsOf: hash.bytes, at: position)
        return result
    }

    /// `blob.referrers` value, version 1: `u8 version | (u32 length | UTF-8 id)*`,
    /// ascending by bytes.
    static func encodeDocuments(_ documents: Set<[UInt8]>) -> [UInt8] {
        var bytes: [UInt8] = [version]
        for document in documents.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            BlobIndexRecord.append(UInt32(document.count), to: &bytes)
            bytes += document
        }
        return bytes
    }

    static func decodeDocuments(_ bytes: [UInt8], blob hash: BlobHash) throws(AccordError) -> Set<[UInt8]> {
        let corrupt = AccordError(
            .storageCorrupt, "the referrers of blob \(hash) are damaged", details: ["blob": hash.hex])
        guard bytes.first == version else { throw corrupt }
        var documents = Set<[UInt8]>()
        var offset = 1
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { throw corrupt }
            let length = Int(BlobIndexRecord.readInteger(bytes, at: &offset) as UInt32)
            guard bytes.count - offset >= length else { throw corrupt }
            // Decoding repairs bad UTF-8; comparing back rejects it instead (String's
            // validating initializer needs macOS 15).
            let slice = bytes[offset..<offset + length]
            guard String(decoding: slice, as: UTF8.self).utf8.elementsEqual(slice) else { throw corrupt }
            documents.insert(Array(slice))
            offset += length
        }
        return documents
    }

    /// The operation that stores `hashes` as `document`'s references.
    static func storeHashes(_ hashes: Set<BlobHash>, document: String) -> StorageOperation {
        hashes.isEmpty
            ? .delete(.blobRefs, key: document)
            : .put(.blobRefs, key: document, value: encodeHashes(hashes))
    }

    /// The operation that stores `documents` as the referrers of `hash`.
    static func storeDocuments(_ documents: Set<[UInt8]>, blob hash: BlobHash) -> StorageOperation {
        documents.isEmpty
            ? .delete(.blobReferrers, key: hash.hex)
            : .put(.blobReferrers, key: hash.hex, value: encodeDocuments(documents))
    }
}
