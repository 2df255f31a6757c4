import Foundation

/// Which seeds a randomized test runs, chosen by the environment so that a failure can
/// be replayed alone and a soak run can go long:
///
/// * `ACCORD_SEED=<n>` runs only seed `n` (and tests may print more detail);
/// * `ACCORD_SOAK=1` runs `soak` seeds;
/// * otherwise `standard` seeds, from 0.
public struct FuzzSeeds: Sendable {
    public let seeds: [UInt64]
    /// True when `ACCORD_SEED` picked one seed to replay.
    public let isReplay: Bool
    /// True when `ACCORD_SOAK=1`.
    public let isSoak: Bool

    public init(standard: Int, soak: Int, environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let text = environment["ACCORD_SEED"], let seed = UInt64(text.trimmingCharacters(in: .whitespaces)) {
            seeds = [seed]
            isReplay = true
            isSoak = false
        } else {
            isReplay = false
            isSoak = environment["ACCORD_SOAK"] == "1"
            seeds = (0..<UInt64(isSoak ? soak : standard)).map { $0 }
        }
    }

    /// The seeds split into `count` interleaved chunks (for parameterized tests).
    public func chunk(_ index: Int, of count: Int) -> [UInt64] {
        seeds.enumerated().filter { $0.offset % count == index }.map(\.element)
    }

    /// Writes a failing run's trace to a temporary file and returns its path (nil if that
    /// fails). Long traces do not fit in an issue message.
    public static func writeTrace(_ lines: [String], name: String) -> String? {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("accord-\(name).trace")
        do {
            try Data(lines.joined(separator: "\n").utf8).write(to: url)
            return url.path
        } catch {
            return nil
        }
    }

    /// The line printed with a failing seed.
    public static func replayHint(seed: UInt64, filter: String) -> String {
        "replay with: ACCORD_SEED=\(seed) swift test --filter \(filter)"
    }
}

extension RandomNumberGenerator {
    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        Double(next() >> 11) * 0x1p-53 < p
    }
}
