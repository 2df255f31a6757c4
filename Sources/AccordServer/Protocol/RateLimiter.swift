/// A token bucket: `ratePerSecond` messages on average, bursts of up to `burst`.
/// Time is in milliseconds and comes from the caller, so tests control it.
struct RateLimiter: Sendable {
    let ratePerSecond: Double
    let burst: Double
    private var tokens: Double
    private var last: UInt64

    init(ratePerSecond: Int, burst: Int, now: UInt64) {
        self.ratePerSecond = Double(max(ratePerSecond, 1))
        self.burst = Double(max(burst, 1))
        self.tokens = self.burst
        self.last = now
    }

    /// Takes one token; false when the bucket is empty (the message must be dropped).
    mutating func allow(now: UInt64) -> Bool {
        if now > last {
            tokens = min(burst, tokens + Double(now - last) * ratePerSecond / 1000)
            last = now
        }
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
