#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who may take a descriptor: the per-address cap on HTTP-stage connections and the
/// descriptor reserve. Service thread only.
///
/// A client that opens connections and never finishes a request (20,500 of them in
/// the probe) used to exhaust the process' descriptors, after which `accept` failed
/// with EMFILE and even health checks went unanswered.
struct ConnectionAdmission {
    enum Verdict: Equatable {
        case serve
        /// Serve only reserved paths, one request, then close.
        case reserveOnly
        case refuse(HTTPRefusal)
    }

    let maxPerAddress: Int
    /// Descriptors at or above this number are in the reserve.
    let reserveThreshold: Int
    private var perAddress: [String: Int] = [:]

    init(maxPerAddress: Int, descriptorLimit: Int?, reserve: Int) {
        self.maxPerAddress = maxPerAddress
        self.reserveThreshold = (descriptorLimit ?? Self.softDescriptorLimit()) - reserve
    }

    /// A connection from `address` on descriptor `fd` opened. Every admitted
    /// connection (refused ones too, until they close) must be `released`.
    mutating func admit(address: String, fd: Int32) -> Verdict {
        perAddress[address, default: 0] += 1
        if maxPerAddress > 0, perAddress[address]! > maxPerAddress { return .refuse(.tooManyConnections) }
        // Linux hands out the lowest free descriptor, so a number this high means the
        // table is full below it.
        if Int(fd) >= reserveThreshold { return .reserveOnly }
        return .serve
    }

    mutating func release(address: String) {
        guard let count = perAddress[address] else { return }
        perAddress[address] = count > 1 ? count - 1 : nil
    }

    /// The soft `RLIMIT_NOFILE`, which lws sizes its descriptor table from.
    static func softDescriptorLimit() -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        #else
        guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return 1024 }
        #endif
        return Int(clamping: limit.rlim_cur)  // RLIM_INFINITY clamps to Int.max
    }
}
