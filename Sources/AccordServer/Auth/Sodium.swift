import AccordCRDT
internal import CSodium

/// The one place in AccordServer that initializes libsodium.
///
/// libsodium asks for `sodium_init()` before any other call (it picks implementations for
/// this CPU and opens the random source). The call is thread-safe and idempotent; the
/// `static let` runs it once, on first use. A ``TokenAuthority`` only exists after this
/// succeeded, so its HMAC calls never check again.
enum Sodium {
    /// 0 when it initialized, 1 when it already was, -1 on failure.
    private static let initializationResult: Int32 = sodium_init()

    /// Throws `IO_ERROR` when libsodium could not start; the only documented cause is
    /// that the system offers no source of randomness.
    static func ensureInitialized() throws(AccordError) {
        guard initializationResult >= 0 else {
            throw AccordError(
                .ioError, "libsodium could not be initialized (sodium_init returned \(initializationResult))")
        }
    }
}
