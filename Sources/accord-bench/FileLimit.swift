#if os(Linux)
import Glibc
#else
import Darwin
#endif

/// The open-file limit of this process, which the client pool (lws sizes its fd table
/// from it) and the servers it starts (they inherit it) live within.
enum FileLimit {
    /// Raises the soft limit to the hard one and returns the soft limit now in force.
    @discardableResult
    static func raiseToHard() -> Int {
        var limit = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
