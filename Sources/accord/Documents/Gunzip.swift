import AccordCRDT
import CZlib

/// Decompresses gzip (or zlib) data with the system's zlib, for `.ndjson.gz` input.
enum Gunzip {
    /// The decompressed bytes; `MALFORMED_DATA`-style failures are `INVALID_ARGUMENT`
    /// naming `name` (the file).
    static func decompress(_ input: [UInt8], name: String) throws(AccordError) -> [UInt8] {
        var stream = z_stream()
        guard accord_inflate_init_gzip(&stream) == Z_OK else {
            throw AccordError(.ioError, "\(name): zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var status: Int32 = Z_OK
        var source = input
        source.withUnsafeMutableBufferPointer { inputBytes in
            stream.next_in = inputBytes.baseAddress
            stream.avail_in = uInt(inputBytes.count)
            repeat {
                buffer.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
                }
                // A gzip file may hold several members one after another (`cat a.gz b.gz`).
                if status == Z_STREAM_END, stream.avail_in > 0 {
                    status = inflateReset(&stream)
                }
            } while status == Z_OK
        }
        guard status == Z_STREAM_END else {
            throw AccordError(.invalidArgument, "\(name): not valid gzip data (zlib status \(status))",
                              details: ["file": name, "input": name])
        }
        return output
    }
}
