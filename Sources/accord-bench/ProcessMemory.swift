#if os(Linux)
import Foundation
import Glibc

/// Memory figures of the current process, read from `/proc` (Linux only).
enum ProcessMemory {
    /// Resident set size now: field 2 of `/proc/self/statm` (pages) times the page size.
    static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// Peak resident set size of this process image: `VmHWM` in `/proc/self/status`.
    /// (`ru_maxrss` is not used: on Linux it keeps the parent's peak across fork+exec.)
    static func peakResidentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kb = Int(parts[1]) { return kb * 1024 }
        }
        return nil
    }

    /// Hands freed heap pages back to the kernel (glibc `malloc_trim(0)`), so RSS counts
    /// live memory only. Glibc's Swift module does not export it, hence the lookup.
    static func trimHeap() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }
}
#endif
