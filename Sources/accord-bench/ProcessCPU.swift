#if os(Linux)
import Glibc
#else
import Darwin
#endif

/// CPU time of this process only (user plus system, all threads; not the servers it
/// started): a load case reports what the load generator itself used, so a reader can
/// tell whether the client side, sharing the machine with the server, held it back.
enum ProcessCPU {
    static func seconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        func value(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return value(usage.ru_utime) + value(usage.ru_stime)
    }
}
