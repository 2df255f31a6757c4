import CWebSockets

/// The server's answer to a WebSocket upgrade (RFC 6455 §4.2.2): 101 with
/// `Sec-WebSocket-Accept`, the base64 SHA-1 of the client's key and the protocol GUID.
/// No subprotocol and no extension is ever agreed, so frames never carry RSV bits.
enum UpgradeResponse {
    /// §1.3: the GUID every server appends to the key.
    private static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for `key` (as sent, surrounding spaces trimmed by the parser).
    /// lws exports its SHA-1 and base64 helpers (`lws-sha1-base64.h`), so no other
    /// crypto library is needed for the one digest the handshake takes.
    static func accept(forKey key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        _ = lws_SHA1(input, input.count, &digest)
        var encoded = [CChar](repeating: 0, count: 32)  // 28 characters and a NUL
        let count = digest.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { lws_b64_encode_string($0.baseAddress, Int32($0.count), &encoded, Int32(encoded.count)) }
        }
        return String(decoding: encoded[..<Int(max(count, 0))].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The whole 101 head for an upgrade request carrying `key`.
    static func head(forKey key: String) -> [UInt8] {
        Array(
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(accept(forKey: key))\r\n\r\n").utf8)
    }
}
