import Foundation

/// Send instants of the markers a load case types, and the delivery latencies of those
/// markers at the receiving clients.
///
/// A marker is `[n]`, `n` a number this book hands out; the edit's text carries it, so
/// it survives whatever the server does to the update (re-encoding, merging several
/// into one message) and is found again in the text a receiver's document inserts.
final class LatencyBook: @unchecked Sendable {
    // Invariant: every `var` is only touched with `lock` held.
    private let lock = NSLock()
    private var sentAt: [ContinuousClock.Instant] = []
    private var deliveries: [Double] = []
    private var firstSend: ContinuousClock.Instant?
    private var lastReceipt: ContinuousClock.Instant?

    /// A new marker's text, its send instant recorded as now.
    func stamp() -> String {
        lock.withLock {
            let now = ContinuousClock.now
            if firstSend == nil { firstSend = now }
            sentAt.append(now)
            return "[\(sentAt.count - 1)]"
        }
    }

    /// Every marker in `text` arrived at one receiver at `instant`.
    func received(_ text: String, at instant: ContinuousClock.Instant) {
        let markers = Self.markers(in: text)
        guard !markers.isEmpty else { return }
        lock.withLock {
            for marker in markers where marker < sentAt.count {
                deliveries.append(Timing.milliseconds(instant - sentAt[marker]))
            }
            if lastReceipt.map({ instant > $0 }) ?? true { lastReceipt = instant }
        }
    }

    var sent: Int { lock.withLock { sentAt.count } }
    /// Every delivery latency so far, in milliseconds.
    var latencies: [Double] { lock.withLock { deliveries } }
    var delivered: Int { lock.withLock { deliveries.count } }

    /// Deliveries per second from the first send to the last receipt.
    var deliveriesPerSecond: Double {
        lock.withLock {
            guard let firstSend, let lastReceipt, lastReceipt > firstSend else { return 0 }
            return Double(deliveries.count) / (Timing.milliseconds(lastReceipt - firstSend) / 1000)
        }
    }

    /// The `p`-quantile (0...1) of the latencies in milliseconds, nearest rank; 0 when
    /// nothing arrived.
    func percentile(_ p: Double) -> Double {
        let sorted = lock.withLock { deliveries }.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The numbers of every `[digits]` in `text`.
    static func markers(in text: String) -> [Int] {
        var found: [Int] = []
        var number: Int?  // inside a bracket: the digits so far
        var digits = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "["):
                number = 0
                digits = 0
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                number = number.map { $0 * 10 + Int(byte - UInt8(ascii: "0")) }
                digits += 1
            case UInt8(ascii: "]"):
                if let number, digits > 0 { found.append(number) }
                number = nil
            default:
                number = nil
            }
        }
        return found
    }
}
