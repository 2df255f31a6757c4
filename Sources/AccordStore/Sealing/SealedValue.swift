import AccordCRDT
internal import CSodium

/// The byte format of a sealed value, and sealing and opening one.
///
/// Format version 1:
///
/// ```
/// offset 0       1 byte    format version (1)
/// offset 1       24 bytes  random nonce (XChaCha20's 192-bit nonce: random nonces never repeat in practice)
/// offset 25      n bytes   ciphertext of the n-byte plaintext
/// offset 25 + n  16 bytes  Poly1305 tag over the ciphertext and the additional data
/// ```
///
/// The additional data is ``SealedLocation/additionalData(version:)``: the version and the
/// place the value belongs, so a value that was changed, truncated, sealed with another
/// key or moved to another place fails the tag check. A sealed value is 41 bytes longer
/// than its plaintext.
enum SealedValue {
    static let currentVersion: UInt8 = 1
    static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// Version byte and nonce, in front of the ciphertext.
    static let headerLength = 1 + nonceLength
    /// Bytes a sealed value has beyond its plaintext; also the shortest valid sealed value.
    static let overhead = headerLength + tagLength
    /// The largest plaintext the format takes: bounded by libsodium's limit and by what
    /// fits in an `Int` together with the overhead. (`size_t` imports as `Int`, and
    /// libsodium's limit is near `SIZE_MAX`, so it is read back as unsigned.)
    static let maximumPlaintextLength = Int(
        clamping: min(
            UInt(bitPattern: crypto_aead_xchacha20poly1305_ietf_messagebytes_max()), UInt(Int.max - overhead)))

    /// Seals `plaintext` for `location` with a fresh random nonce.
    /// - Throws: `INVALID_ARGUMENT` when the plaintext is larger than the format allows.
    static func seal(_ plaintext: [UInt8], at location: SealedLocation, with key: SealingKey) throws(AccordError) -> [UInt8] {
        guard plaintext.count <= maximumPlaintextLength else {
            throw AccordError(
                .invalidArgument, "a \(plaintext.count)-byte value is too large to seal", details: location.details)
        }
        let additionalData = location.additionalData(version: currentVersion)
        let sealedLength = overhead + plaintext.count
        var succeeded = false
        let sealed = [UInt8](unsafeUninitializedCapacity: sealedLength) { output, initializedCount in
            initializedCount = 0
            guard let base = output.baseAddress else { return }
            base.initialize(to: currentVersion)
            randombytes_buf(base + 1, nonceLength)
            var cipherLength: UInt64 = 0
            let result = plaintext.withUnsafeBufferPointer { message in
                additionalData.withUnsafeBufferPointer { data in
                    key.secret.withUnsafePointer { keyBytes in
                        crypto_aead_xchacha20poly1305_ietf_encrypt(
                            base + headerLength, &cipherLength, message.baseAddress, UInt64(message.count),
                            data.baseAddress, UInt64(data.count), nil, base + 1, keyBytes)
                    }
                }
            }
            guard result == 0, cipherLength == UInt64(plaintext.count + tagLength) else { return }
            initializedCount = sealedLength
            succeeded = true
        }
        guard succeeded else {
            throw AccordError(.storageError, "libsodium failed to seal the \(location.phrase)", details: location.details)
        }
        return sealed
    }

    /// Opens a value sealed for `location`.
    /// - Throws: `STORAGE_CORRUPT` (with the location in `details`) when the value is too
    ///   short, has an unknown format version, or fails authentication: sealed with
    ///   another key, changed, truncated, or moved from another location. Never returns
    ///   bytes that did not pass the tag check.
    static func open(_ sealed: [UInt8], at location: SealedLocation, with key: SealingKey) throws(AccordError) -> [UInt8] {
        // Checked before any length arithmetic: the plaintext length below is derived
        // from the stored length, never trusted from inside the stored bytes.
        guard sealed.count >= overhead else {
            throw corrupt(
                "the \(location.phrase) is \(sealed.count) bytes, shorter than any sealed value (\(overhead)): truncated",
                location)
        }
        guard sealed[0] == currentVersion else {
            throw corrupt("the \(location.phrase) has unknown sealed format version \(sealed[0])", location)
        }
        let additionalData = location.additionalData(version: currentVersion)
        let plaintextLength = sealed.count - overhead
        var succeeded = false
        let plaintext = [UInt8](unsafeUninitializedCapacity: plaintextLength) { output, initializedCount in
            initializedCount = 0
            var openedLength: UInt64 = 0
            // For an empty plaintext `output.baseAddress` may be nil; libsodium then only
            // checks the tag, which is exactly what is needed.
            let result = sealed.withUnsafeBufferPointer { input in
                additionalData.withUnsafeBufferPointer { data in
                    key.secret.withUnsafePointer { keyBytes -> Int32 in
                        guard let base = input.baseAddress else { return -1 }
                        return crypto_aead_xchacha20poly1305_ietf_decrypt(
                            output.baseAddress, &openedLength, nil, base + headerLength,
                            UInt64(input.count - headerLength), data.baseAddress, UInt64(data.count), base + 1, keyBytes)
                    }
                }
            }
            guard result == 0, openedLength == UInt64(plaintextLength) else { return }
            initializedCount = plaintextLength
            succeeded = true
        }
        guard succeeded else {
            throw corrupt(
                "the \(location.phrase) cannot be opened: sealed with another key, changed, or moved from elsewhere",
                location)
        }
        return plaintext
    }

    private static func corrupt(_ message: String, _ location: SealedLocation) -> AccordError {
        AccordError(.storageCorrupt, message, details: location.details)
    }
}
