public import AccordCRDT
internal import CSodium

/// The secret key that seals stored records at rest (see ``SealedStorageAdapter``).
///
/// A key is 32 random bytes (XChaCha20-Poly1305). The app owns it: on Apple platforms
/// keep it in the Keychain and pass its bytes to ``init(bytes:)``; on Linux keep it in a
/// file only its owner can read (``init(contentsOfFile:)``, ``write(toFile:)``).
/// Losing the key loses the data sealed with it; there is no recovery.
///
/// ```swift
/// let key = try SealingKey.generate()
/// try key.write(toFile: "/var/lib/app/accord.key")        // mode 0600
/// let storage = SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: dbPath), key: key)
/// ```
///
/// The bytes live in one buffer that is wiped when the last copy of the key is released.
/// `description` never shows them, so a key that ends up in a log line stays secret.
public struct SealingKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The length of a key in bytes.
    public static let byteCount = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)

    let secret: SecretBytes

    /// A key from its 32 bytes (for example as read from the Keychain).
    ///
    /// The bytes are copied; wiping `bytes` afterwards is up to the caller.
    /// - Throws: `INVALID_ARGUMENT` when `bytes` is not exactly 32 bytes long;
    ///   `STORAGE_ERROR` when libsodium cannot be initialized.
    public init(bytes: [UInt8]) throws(AccordError) {
        try Sodium.ensureInitialized()
        guard bytes.count == Self.byteCount else {
            throw AccordError(
                .invalidArgument, "a sealing key is \(Self.byteCount) bytes, not \(bytes.count)")
        }
        secret = SecretBytes(count: Self.byteCount) { destination in
            bytes.withUnsafeBufferPointer { source in
                for index in 0..<source.count { destination[index] = source[index] }
            }
        }
    }

    /// Builds a key by letting `fill` write its 32 bytes straight into the wiped buffer,
    /// so the secret never passes through a temporary array.
    init(filling fill: (UnsafeMutablePointer<UInt8>) throws(AccordError) -> Void) throws(AccordError) {
        try Sodium.ensureInitialized()
        secret = try SecretBytes(count: Self.byteCount, initialize: fill)
    }

    /// A new random key from the operating system's secure random source (`randombytes_buf`).
    /// - Throws: `STORAGE_ERROR` when libsodium cannot be initialized.
    public static func generate() throws(AccordError) -> SealingKey {
        try SealingKey { destination in randombytes_buf(destination, byteCount) }
    }

    /// Runs `body` with the key's bytes, for example to store a new key in the Keychain.
    /// The buffer is valid only during the call; keep no copy longer than needed.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try secret.withUnsafePointer { (pointer) throws(E) -> R in
            try body(UnsafeRawBufferPointer(start: pointer, count: Self.byteCount))
        }
    }

    /// `SealingKey(<redacted>)`: never the key's bytes.
    public var description: String { "SealingKey(<redacted>)" }
    public var debugDescription: String { description }
    /// No children, so `dump(key)` and debuggers built on `Mirror` show nothing secret either.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
