import AccordCRDT
internal import CSodium

/// The format of a sealed content file, and sealing and opening one piece at a time
/// with libsodium's `crypto_secretstream_xchacha20poly1305`, which is made for long
/// streams: each piece is authenticated on its own (so a reader never hands out a
/// changed piece), pieces cannot be reordered or dropped, and a final tag marks the end
/// (so a truncated file is detected).
///
/// Format version 1, integers little endian:
///
///     u8 version (1) | u32 piece size p | secretstream header (24 bytes) |
///     one message per p bytes of content (the last may be shorter), 17 bytes longer each |
///     a final empty message (17 bytes, tag FINAL)
///
/// The final message's additional data is `version | p | SHA-256 of the content |
/// u64 size`, so a file only opens under the name and size its index record gives.
/// The key is a subkey of the store's ``SealingKey`` (``deriveKey(from:)``), never
/// the key that seals the adapter's records.
enum BlobFileSealing {
    static let version: UInt8 = 1
    static let streamHeaderLength = Int(crypto_secretstream_xchacha20poly1305_headerbytes())
    /// Bytes a sealed message has beyond its piece.
    static let messageOverhead = Int(crypto_secretstream_xchacha20poly1305_abytes())
    /// Version, piece size and stream header, before the first message.
    static let headerLength = 1 + 4 + streamHeaderLength

    /// The length of a sealed file holding `size` bytes in pieces of `pieceSize`, or nil
    /// when that overflows (only a damaged record or header can ask for it).
    static func fileLength(size: UInt64, pieceSize: UInt64) -> UInt64? {
        guard pieceSize > 0 else { return nil }
        let pieces = size == 0 ? 0 : (size - 1) / pieceSize + 1
        let (overhead, overflow1) = (pieces + 1).multipliedReportingOverflow(by: UInt64(messageOverhead))
        let (total, overflow2) = size.addingReportingOverflow(overhead + UInt64(headerLength))
        return overflow1 || overflow2 ? nil : total
    }

    /// The content-file key: a BLAKE2b subkey of the sealing key (`crypto_kdf`, context
    /// `accblob1`), so the same key never drives two constructions.
    static func deriveKey(from key: SealingKey) throws(AccordError) -> SecretBytes {
        let context = Array("accblob1".utf8CString)
        return try SecretBytes(count: Int(crypto_kdf_KEYBYTES)) { (subkey) throws(AccordError) in
            let result = key.secret.withUnsafePointer { master in
                context.withUnsafeBufferPointer { context in
                    crypto_kdf_derive_from_key(subkey, Int(crypto_kdf_KEYBYTES), 1, context.baseAddress!, master)
                }
            }
            guard result == 0 else { throw AccordError(.storageError, "libsodium failed to derive the blob file key") }
        }
    }

    /// The final message's additional data.
    static func finalData(pieceSize: UInt32, hash: BlobHash, size: UInt64) -> [UInt8] {
        var bytes = [version]
        BlobIndexRecord.append(pieceSize, to: &bytes)
        bytes += hash.bytes
        BlobIndexRecord.append(size, to: &bytes)
        return bytes
    }

    /// Seals a content file as it is written.
    struct Sealer {
        private var state = crypto_secretstream_xchacha20poly1305_state()
        let pieceSize: UInt32
        /// The file's first ``headerLength`` bytes.
        private(set) var header: [UInt8] = []

        init(key: SecretBytes, pieceSize: UInt32) throws(AccordError) {
            self.pieceSize = pieceSize
            var header = [UInt8](repeating: 0, count: streamHeaderLength)
            let result = key.withUnsafePointer { key in crypto_secretstream_xchacha20poly1305_init_push(&state, &header, key) }
            guard result == 0 else { throw AccordError(.storageError, "libsodium failed to start sealing a blob file") }
            var bytes = [version]
            BlobIndexRecord.append(pieceSize, to: &bytes)
            self.header = bytes + header
        }

        /// Seals `piece` (at most `pieceSize` bytes) into `output`, which has room for
        /// `piece.count + messageOverhead` bytes; returns the sealed length.
        mutating func seal(
            _ piece: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
        ) throws(AccordError) -> Int {
            try push(piece, additionalData: [], tag: crypto_secretstream_xchacha20poly1305_tag_message(), into: output)
        }

        /// The final message, binding the content's hash and size.
        mutating func finish(hash: BlobHash, size: UInt64) throws(AccordError) -> [UInt8] {
            var output = [UInt8](repeating: 0, count: messageOverhead)
            let data = finalData(pieceSize: pieceSize, hash: hash, size: size)
            _ = try output.withMutableBytes { (output) throws(AccordError) in
                try push(
                    UnsafeRawBufferPointer(start: nil, count: 0), additionalData: data,
                    tag: crypto_secretstream_xchacha20poly1305_tag_final(), into: output)
            }
            return output
        }

        private mutating func push(
            _ piece: UnsafeRawBufferPointer, additionalData: [UInt8], tag: UInt8, into output: UnsafeMutableRawBufferPointer
        ) throws(AccordError) -> Int {
            precondition(output.count >= piece.count + messageOverhead)
            var length: UInt64 = 0
            let result = additionalData.withUnsafeBufferPointer { data in
                crypto_secretstream_xchacha20poly1305_push(
                    &state, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length,
                    piece.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(piece.count),
                    data.baseAddress, UInt64(data.count), tag)
            }
            guard result == 0 else { throw AccordError(.storageError, "libsodium failed to seal a blob file piece") }
            return Int(length)
        }
    }

    /// Opens a sealed content file as it is read. Every failure means the file was
    /// sealed with another key, changed, truncated or moved: the caller reports
    /// `STORAGE_CORRUPT` naming the blob.
    struct Opener {
        private var state = crypto_secretstream_xchacha20poly1305_state()
        let pieceSize: UInt32

        /// Nil when the header is not version 1 with a piece size of 4 KiB to 16 MiB, or
        /// the stream does not start.
        init?(header: [UInt8], key: SecretBytes) {
            guard header.count == headerLength, header[0] == version else { return nil }
            var offset = 1
            pieceSize = BlobIndexRecord.readInteger(header, at: &offset)
            guard (4096...(16 << 20)).contains(pieceSize) else { return nil }
            let stream = Array(header[offset...])
            let result = key.withUnsafePointer { key in crypto_secretstream_xchacha20poly1305_init_pull(&state, stream, key) }
            guard result == 0 else { return nil }
        }

        /// Opens one content message into `output` (room for `message.count -
        /// messageOverhead` bytes); nil when it fails or is not an ordinary message.
        mutating func open(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
            guard message.count > messageOverhead, output.count >= message.count - messageOverhead else { return nil }
            var length: UInt64 = 0
            var tag: UInt8 = 0
            let result = crypto_secretstream_xchacha20poly1305_pull(
                &state, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, &tag,
                message.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(message.count), nil, 0)
            guard result == 0, tag == crypto_secretstream_xchacha20poly1305_tag_message() else { return nil }
            return Int(length)
        }

        /// Checks the final message against the hash and size the index record gives.
        mutating func finish(_ message: [UInt8], hash: BlobHash, size: UInt64) -> Bool {
            guard message.count == messageOverhead else { return false }
            let data = finalData(pieceSize: pieceSize, hash: hash, size: size)
            var length: UInt64 = 0
            var tag: UInt8 = 0
            var scratch: UInt8 = 0
            let result = crypto_secretstream_xchacha20poly1305_pull(
                &state, &scratch, &length, &tag, message, UInt64(message.count), data, UInt64(data.count))
            return result == 0 && length == 0 && tag == crypto_secretstream_xchacha20poly1305_tag_final()
        }
    }
}
