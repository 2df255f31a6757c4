internal import CSodium

/// A fixed-size buffer for secret bytes (a key) that is wiped when released.
///
/// A `[UInt8]` would be copied around by copy-on-write and its old storage freed
/// without being cleared; this buffer has one owner and `deinit` zeroes it with
/// `sodium_memzero` (which the compiler may not optimize away) before freeing it.
///
/// `@unchecked Sendable`: the bytes are written only inside `init` and never after, so
/// sharing the reference across threads only ever shares reads.
final class SecretBytes: @unchecked Sendable {
    let count: Int
    private let pointer: UnsafeMutablePointer<UInt8>

    /// Allocates `count` bytes and lets `initialize` fill all of them. If it throws, the
    /// buffer is wiped and freed before the error goes on.
    init<E: Error>(count: Int, initialize: (UnsafeMutablePointer<UInt8>) throws(E) -> Void) throws(E) {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        pointer.initialize(repeating: 0, count: count)
        do {
            try initialize(pointer)
        } catch {
            sodium_memzero(pointer, count)
            pointer.deallocate()
            throw error
        }
        self.count = count
        self.pointer = pointer
    }

    /// Runs `body` with the bytes; the pointer is valid only during the call.
    func withUnsafePointer<R, E: Error>(_ body: (UnsafePointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(pointer)
    }

    deinit {
        sodium_memzero(pointer, count)
        pointer.deallocate()
    }
}
