/// The request target of an HTTP/1.1 request line (origin form, `/path?query`), decoded
/// strictly. lws 4.1 rewrites paths while it parses them (`x/../y` becomes `y`, `//`
/// and `/./` collapse, `%0a` truncates, `+` turns into a space, bad UTF-8 becomes
/// U+FFFD), so a route could act on a resource other than the one named; here the path
/// is exactly what was sent, percent-decoded, or the request is refused.
struct RequestTarget: Equatable {
    /// Percent-decoded, `+` literal, never normalised.
    var path: String
    var query: [QueryItem]

    /// Parses `target`; nil when it is not origin form, has an invalid percent escape,
    /// decodes to a control character or to invalid UTF-8, or has raw bytes outside
    /// visible ASCII.
    static func parse(_ target: ArraySlice<UInt8>) -> RequestTarget? {
        guard target.first == UInt8(ascii: "/") else { return nil }
        // Only visible ASCII may appear raw; '#' never travels in a request.
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else { return nil }
        let questionMark = target.firstIndex(of: UInt8(ascii: "?"))
        guard let path = decode(target[..<(questionMark ?? target.endIndex)], plusIsSpace: false) else { return nil }
        var query: [QueryItem] = []
        if let questionMark {
            for pair in target[(questionMark + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                let equals = pair.firstIndex(of: UInt8(ascii: "="))
                guard let name = decode(pair[..<(equals ?? pair.endIndex)], plusIsSpace: true),
                    let value = equals.map({ decode(pair[($0 + 1)...], plusIsSpace: true) }) ?? ""
                else { return nil }
                query.append(QueryItem(name: name, value: value))
            }
        }
        return RequestTarget(path: path, query: query)
    }

    /// `%XX` to bytes, then strict UTF-8. Query strings use the form encoding, where
    /// `+` is a space; paths do not (RFC 3986), so there `+` stays `+`.
    static func decode(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2])
                else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        // Control characters (CR, LF, NUL...) cut or split paths in logs, headers and
        // SQL text further down; no resource name needs them.
        guard !out.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
