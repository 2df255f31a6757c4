/// When to try again after a connection failed or was lost: exponential backoff with
/// jitter, capped, reset by a successful connection.
///
/// Jitter spreads clients that lost the same server at the same moment, so they do not
/// all come back in the same millisecond. "Equal jitter": each delay is half the
/// exponential step plus a random part of the other half, so it still grows (never
/// below half the step) but no two clients agree. The random source is passed in,
/// so tests replay a seed.
public struct ReconnectPolicy: Hashable, Sendable {
    /// The first step (ms).
    public var initialDelay: UInt64
    /// No delay is longer than this (ms).
    public var maxDelay: UInt64
    /// Failures since the last successful connection.
    public private(set) var attempts = 0

    public init(initialDelay: UInt64 = 500, maxDelay: UInt64 = 30_000) {
        self.initialDelay = max(1, initialDelay)
        self.maxDelay = max(self.initialDelay, maxDelay)
    }

    /// The exponential step for the current attempt, before jitter: `initialDelay · 2^attempts`, capped.
    public var step: UInt64 {
        // Past 2^40 the shift would overflow long before the cap matters.
        let shift = UInt64(min(attempts, 40))
        let (grown, overflow) = initialDelay.multipliedReportingOverflow(by: 1 << shift)
        return overflow ? maxDelay : min(grown, maxDelay)
    }

    /// The delay before the next attempt (ms), and counts the attempt.
    public mutating func nextDelay(using random: inout some RandomNumberGenerator) -> UInt64 {
        let step = self.step
        attempts += 1
        let half = step / 2
        return half + UInt64.random(in: 0...(step - half), using: &random)
    }

    /// A connection succeeded: the next failure starts from the first step again.
    public mutating func reset() { attempts = 0 }
}
