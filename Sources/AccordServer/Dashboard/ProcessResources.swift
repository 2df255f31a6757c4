import Foundation

/// The server process's own footprint, for the dashboard's overview: resident memory
/// and open file descriptors. Read from `/proc/self` on Linux; on other platforms the
/// values are nil (the page shows "n/a") rather than a guess.
enum ProcessResources {
    /// Resident set size in bytes: `/proc/self/statm`'s second field (pages) times the page size.
    static func residentBytes() -> Int? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return nil
        #endif
    }

    /// Open descriptors: the entries of `/proc/self/fd` (less the one the listing itself holds).
    static func openDescriptors() -> Int? {
        #if os(Linux)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        return max(0, entries.count - 1)
        #else
        return nil
        #endif
    }
}
