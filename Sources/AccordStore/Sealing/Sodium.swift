import AccordCRDT
internal import CSodium

/// The one place that initializes libsodium.
///
/// libsodium requires `sodium_init()` before any other call: it picks the fastest
/// implementations for this CPU and opens the system's random source. The call is
/// thread-safe and idempotent; a `static let` runs it once, lazily, the first time any
/// sealing code needs it. A ``SealingKey`` is only ever created after this succeeded,
/// so code holding a key never needs to check again.
enum Sodium {
    /// `sodium_init()` returns 0 when it initialized, 1 when already initialized, -1 on failure.
    private static let initializationResult: Int32 = sodium_init()

    /// Throws `STORAGE_ERROR` when libsodium could not be initialized (for example when
    /// no source of randomness is available), so no sealing ever runs on a broken library.
    static func ensureInitialized() throws(AccordError) {
        guard initializationResult >= 0 else {
            throw AccordError(
                .storageError, "libsodium could not be initialized (sodium_init returned \(initializationResult))")
        }
    }
}
