import COpenSSL

/// OpenSSL's error queue as text, for the message of a coded `NetError`. The queue is
/// per thread; every caller clears it before the call it then explains.
enum OpenSSLError {
    /// Every queued reason, oldest first, joined with "; " (the queue ends empty).
    /// `fallback` when OpenSSL queued none (a failure it only returned).
    static func drain(fallback: String) -> String {
        var reasons: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            // Bounded: the same reason repeated (one per record) says nothing more.
            guard reasons.count < 8 else { continue }
            ERR_error_string_n(code, &buffer, buffer.count)
            let end = buffer.firstIndex(of: 0) ?? buffer.count
            reasons.append(String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.isEmpty ? fallback : reasons.joined(separator: "; ")
    }
}
