internal import CAccordSHA

/// SHA-256 over the CPU's SHA extensions (the `CAccordSHA` block function), with the
/// message padding (FIPS 180-4, 5.1.1) done here. Used for blobs when the CPU has the
/// instructions: it hashes several times faster than libsodium's portable code, which
/// made hashing, not I/O, the limit of blob throughput.
struct HardwareSHA256 {
    /// Whether this CPU can run it (x86-64 with SHA, SSSE3 and SSE4.1).
    static let isAvailable = accord_sha256_hardware_available() == 1

    /// FIPS 180-4, 5.3.3.
    private var state: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]
    /// Input not yet compressed: always fewer than 64 bytes between calls.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    init() {
        pending.reserveCapacity(64)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return }
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: UnsafeBufferPointer(start: base, count: take))
            offset = take
            guard pending.count == 64 else { return }
            compress(pending)
            pending.removeAll(keepingCapacity: true)
        }
        let blocks = (bytes.count - offset) / 64
        if blocks > 0 {
            state.withUnsafeMutableBufferPointer { accord_sha256_compress_hw($0.baseAddress, base + offset, blocks) }
            offset += blocks * 64
        }
        pending.append(contentsOf: UnsafeBufferPointer(start: base + offset, count: bytes.count - offset))
    }

    /// The digest; the hasher must not be used afterwards.
    mutating func finish() -> [UInt8] {
        let bitLength = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        for start in stride(from: 0, to: tail.count, by: 64) { compress(Array(tail[start..<start + 64])) }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in state {
            digest += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                       UInt8(truncatingIfNeeded: word)]
        }
        return digest
    }

    private mutating func compress(_ block: [UInt8]) {
        block.withUnsafeBufferPointer { input in
            state.withUnsafeMutableBufferPointer { accord_sha256_compress_hw($0.baseAddress, input.baseAddress, 1) }
        }
    }
}
