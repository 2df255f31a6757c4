/// lib0 `writeAny` / `readAny` (design/yjs-wire-format.md section 1.5).
extension AnyValue {
    /// Nesting limit for arrays and objects read from untrusted input.
    static let maxDepth = 64

    /// Writes the value with the tag Yjs would choose, so bytes match Yjs's.
    public func write(to w: inout ByteWriter) {
        switch self {
        case .undefined: w.writeUInt8(127)
        case .null: w.writeUInt8(126)
        case .bool(let b): w.writeUInt8(b ? 120 : 121)
        case .int(let i):
            if i.magnitude <= 0x7fff_ffff {
                w.writeUInt8(125)
                w.writeVarInt(i)
            } else if i.magnitude > 9_007_199_254_740_991 {
                // Beyond a double's exact range: keep all 64 bits as a bigint.
                w.writeUInt8(122)
                w.writeInt64(i)
            } else {
                Self.writeFloat(Double(i), to: &w)
            }
        case .double(let d):
            if d.rounded(.towardZero) == d, d.magnitude <= 0x7fff_ffff {
                w.writeUInt8(125)
                w.writeVarInt(Int64(d), negativeZero: d == 0 && d.sign == .minus)
            } else {
                Self.writeFloat(d, to: &w)
            }
        case .string(let s):
            w.writeUInt8(119)
            w.writeVarString(s)
        case .object(let o):
            w.writeUInt8(118)
            w.writeVarUInt(o.count)
            for (k, v) in o.jsKeyOrder {
                w.writeVarString(k)
                v.write(to: &w)
            }
        case .array(let a):
            w.writeUInt8(117)
            w.writeVarUInt(a.count)
            for v in a { v.write(to: &w) }
        case .bytes(let b):
            w.writeUInt8(116)
            w.writeVarBytes(b)
        }
    }

    private static func writeFloat(_ d: Double, to w: inout ByteWriter) {
        let f = Float(d)
        if Double(f) == d || (d.isNaN == false && d.isInfinite) {
            w.writeUInt8(124)
            w.writeFloat32(f)
        } else {
            w.writeUInt8(123)
            w.writeFloat64(d)
        }
    }

    public static func read(from r: inout ByteReader, depth: Int = 0) throws(AccordError) -> AnyValue {
        guard depth < maxDepth else { throw r.error("value nesting deeper than \(maxDepth)") }
        let tag = try r.readUInt8()
        switch tag {
        case 127: return .undefined
        case 126: return .null
        case 125:
            let (v, negZero) = try r.readVarInt()
            return negZero ? .double(-0.0) : .int(v)
        case 124: return .number(Double(try r.readFloat32()))
        case 123: return .number(try r.readFloat64())
        case 122: return .int(try r.readInt64())
        case 121: return .bool(false)
        case 120: return .bool(true)
        case 119: return .string(try r.readVarString())
        case 118:
            let count = try r.readCount(minElementSize: 2, "object size")
            var builder = OrderedObject.Builder()
            for _ in 0..<count {
                let k = try r.readVarString()
                builder.set(k, try read(from: &r, depth: depth + 1))
            }
            return .object(builder.object)
        case 117:
            let count = try r.readCount("array size")
            var a: [AnyValue] = []
            a.reserveCapacity(count)
            for _ in 0..<count { a.append(try read(from: &r, depth: depth + 1)) }
            return .array(a)
        case 116: return .bytes(try r.readVarBytes())
        default: throw r.error("unknown value tag \(tag)")
        }
    }
}

extension OrderedObject {
    /// JavaScript's `Object.keys` order: integer-like keys ascending, then the others
    /// in insertion order. Yjs writes objects in this order.
    var jsKeyOrder: [(key: String, value: AnyValue)] {
        let indexed = entries.compactMap { e in Self.arrayIndex(e.key).map { (index: $0, entry: e) } }
        if indexed.isEmpty { return entries }
        return indexed.sorted { $0.index < $1.index }.map(\.entry)
            + entries.filter { Self.arrayIndex($0.key) == nil }
    }

    private static func arrayIndex(_ key: String) -> UInt32? {
        guard let n = UInt32(key), n != UInt32.max, String(n) == key else { return nil }
        return n
    }
}
