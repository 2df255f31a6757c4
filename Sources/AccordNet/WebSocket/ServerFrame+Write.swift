import CWebSockets

extension ServerFrame {
    /// Writes one whole frame on a raw lws socket (`LWS_WRITE_RAW`, spelled
    /// `LWS_WRITE_HTTP` because Swift does not import the macro alias). Like every
    /// `lws_write`, a short write is reported as complete and lws keeps the rest
    /// (`lws_partial_buffered`), flushing it before the next `RAW_WRITEABLE`, so frames
    /// never interleave as long as each WRITEABLE writes at most one.
    static func write(_ wsi: OpaquePointer, opcode: UInt8, _ payload: [UInt8]) -> Bool {
        write(wsi, header: headerCount(payload: payload.count), payload) { writeHeader(opcode: opcode, payload: payload.count, into: $0) }
    }

    /// Writes bytes that are already framed (the 101 head) on a raw lws socket.
    static func writeRaw(_ wsi: OpaquePointer, _ bytes: [UInt8]) -> Bool {
        write(wsi, header: 0, bytes) { _ in }
    }

    /// `lws_write` needs `LWS_PRE` writable bytes before what it writes.
    private static func write(
        _ wsi: OpaquePointer, header: Int, _ payload: [UInt8], _ writeHeader: (UnsafeMutableRawPointer) -> Void
    ) -> Bool {
        let pre = accord_lws_pre()
        let total = header + payload.count
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pre + total, alignment: 16)
        defer { buffer.deallocate() }
        let frame = buffer.baseAddress! + pre
        writeHeader(frame)
        payload.withUnsafeBytes { source in
            if let base = source.baseAddress { (frame + header).copyMemory(from: base, byteCount: source.count) }
        }
        return lws_write(wsi, frame.assumingMemoryBound(to: UInt8.self), total, LWS_WRITE_HTTP) >= total
    }
}
