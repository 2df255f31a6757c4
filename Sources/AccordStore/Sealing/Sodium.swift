import AccordCRDT
internal import CSodium

/// The one place that initializes libsodium (AccordStore's sealing and blob hashes,
/// AccordServer's token signatures).
///
/// libsodium requires `sodium_init()` before any other call: it picks the fastest
/// implementations for this CPU and opens the system's random source. The call is
/// thread-safe and idempotent; a `static let` runs it once, lazily, the first time any
/// sealing code needs it. A ``SealingKey`` (or a server's token authority) is only ever
/// created after this succeeded, so code holding one never needs to check again.
package enum Sodium {
    /// `sodium_init()` returns 0 when it initialized, 1 when already initialized, -1 on failure.
    private static let initializationResult: Int32 = sodium_init()

    /// Throws `code` (`STORAGE_ERROR` by default) when libsodium could not be initialized
    /// (for example when no source of randomness is available), so no sealing or signing
    /// ever runs on a broken library.
    package static func ensureInitialized(orThrow code: ErrorCode = .storageError) throws(AccordError) {
        guard initializationResult >= 0 else {
            throw AccordError(
                code, "libsodium could not be initialized (sodium_init returned \(initializationResult))")
        }
    }
}
