internal import CSodium

/// HMAC-SHA256 (RFC 2104) over libsodium, the MAC of the JWS `HS256` algorithm (RFC 7518 §3.2).
///
/// Uses `crypto_auth_hmacsha256_init/update/final` rather than `crypto_auth_hmacsha256`,
/// because only the incremental API takes a key of any length; the one-shot call wants
/// exactly 32 bytes, and an operator's secret may be longer.
enum HMACSHA256 {
    static let byteCount = Int(crypto_auth_hmacsha256_BYTES)

    /// The MAC of `message` under `key`. libsodium must be initialized (see ``Sodium``).
    static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var state = crypto_auth_hmacsha256_state()
        var out = [UInt8](repeating: 0, count: byteCount)
        // These calls only fail on null pointers, which Swift arrays never hand over.
        crypto_auth_hmacsha256_init(&state, key, key.count)
        crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        crypto_auth_hmacsha256_final(&state, &out)
        // The state holds key-derived pads; do not leave them on the stack.
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
        return out
    }

    /// Whether `candidate` is the MAC of `message` under `key`, compared in constant time
    /// (`sodium_memcmp`), so the time taken tells an attacker nothing about how many
    /// leading bytes of a guessed signature were right.
    static func isValid(_ candidate: [UInt8], key: [UInt8], message: [UInt8]) -> Bool {
        // The length is public (always 32), so checking it first leaks nothing.
        guard candidate.count == byteCount else { return false }
        let expected = mac(key: key, message: message)
        return sodium_memcmp(candidate, expected, byteCount) == 0
    }
}
