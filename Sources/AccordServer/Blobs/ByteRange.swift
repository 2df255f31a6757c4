/// The `Range` of a blob `GET` and the `Content-Range` of a blob `PUT`.
enum ByteRange {
    /// What a `Range: bytes=…` header asks of a body of `size` bytes (RFC 9110 §14.1).
    enum Request: Equatable {
        /// No usable single range: send the whole body (also for several ranges, which
        /// a server may answer whole).
        case whole
        /// Bytes `start ..< end` (206).
        case part(start: Int64, end: Int64)
        /// A well-formed range that lies outside the body (416).
        case unsatisfiable
    }

    static func parse(range header: String?, size: Int64) -> Request {
        guard let header, header.hasPrefix("bytes=") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: " \t")
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingCharacters(in: " \t")
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: " \t")
        if first.isEmpty {
            // A suffix: the last N bytes.
            guard let count = Self.number(last) else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .part(start: max(0, size - count), end: size)
        }
        guard let start = Self.number(first) else { return .whole }
        let end: Int64
        if last.isEmpty {
            end = size
        } else {
            guard let inclusive = Self.number(last), inclusive >= start else { return .whole }
            end = min(size, inclusive + 1)
        }
        guard start < size else { return .unsatisfiable }
        return .part(start: start, end: end)
    }

    /// `Content-Range: bytes START-END/TOTAL` of an upload part: bytes `start ... end`
    /// of a blob of `total` bytes. Nil when malformed (`*` forms included).
    static func parse(contentRange header: String) -> (start: Int64, end: Int64, total: Int64)? {
        guard header.hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst("bytes ".count).trimmingCharacters(in: " \t")
        guard let slash = spec.firstIndex(of: "/"), let dash = spec[..<slash].firstIndex(of: "-"),
            let start = Self.number(spec[..<dash]), let end = Self.number(spec[spec.index(after: dash)..<slash]),
            let total = Self.number(spec[spec.index(after: slash)...]), start <= end, end < total
        else { return nil }
        return (start, end, total)
    }

    /// Decimal digits only, at most 18 (so it fits an Int64).
    private static func number(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let isTrimmed: (Character) -> Bool = { set.contains($0) }
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
