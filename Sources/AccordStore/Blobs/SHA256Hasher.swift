internal import CSodium
import AccordCRDT

/// libsodium's `sodium_init`, run once on first use (a global's initializer runs
/// exactly once, thread-safely). It returns -1 only when the library cannot start,
/// such as when no source of randomness exists; 0 and 1 (already started) are fine.
private let sodiumInitResult: Int32 = sodium_init()

/// Incremental SHA-256, so a blob is hashed chunk by chunk as it streams, never held
/// whole: on the CPU's SHA extensions where it has them (``HardwareSHA256``), else
/// libsodium's `crypto_hash_sha256_init/update/final`. Both give the same digest (tested
/// against each other and the FIPS 180-4 examples).
package struct SHA256Hasher {
    package enum Engine: CaseIterable {
        case hardware
        case libsodium

        /// The fastest one this CPU runs.
        package static let preferred: Engine = HardwareSHA256.isAvailable ? .hardware : .libsodium
    }

    private var state = crypto_hash_sha256_state()
    private var hardware: HardwareSHA256?

    package init(engine: Engine = .preferred) throws(AccordError) {
        guard sodiumInitResult >= 0 else {
            throw AccordError(.storageError, "libsodium failed to initialize (sodium_init returned \(sodiumInitResult))")
        }
        if engine == .hardware {
            guard HardwareSHA256.isAvailable else {
                throw AccordError(.invalidArgument, "this CPU has no SHA extensions")
            }
            hardware = HardwareSHA256()
        } else {
            // Only fails for a null state pointer, which cannot happen here.
            crypto_hash_sha256_init(&state)
        }
    }

    /// Feeds `bytes` to the hash.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        if hardware != nil {
            hardware!.update(bytes)
            return
        }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        crypto_hash_sha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest (`crypto_hash_sha256_final`). The hasher must not be used afterwards.
    package mutating func finish() -> BlobHash {
        if hardware != nil { return BlobHash(validatedBytes: hardware!.finish()) }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        // The digest is exactly 32 bytes, which is all BlobHash checks.
        return BlobHash(validatedBytes: digest)
    }

    /// The SHA-256 of `bytes` in one call.
    static func hash(_ bytes: [UInt8]) throws(AccordError) -> BlobHash {
        var hasher = try SHA256Hasher()
        hasher.update(bytes)
        return hasher.finish()
    }
}
