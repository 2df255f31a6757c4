import Foundation
import AccordTesting
@testable import AccordCRDT

/// One update taken from the golden vectors, with a label for failure messages.
struct GoldenUpdate: Sendable {
    var label: String
    var bytes: [UInt8]
}

enum UpdateVectors {
    /// Every update v1 in vectors.json: full-state updates, incremental updates, other
    /// peers' updates, merge inputs and results, diff results.
    static var allUpdates: [GoldenUpdate] {
        var out: [GoldenUpdate] = []
        for c in SharedFixtures.cases {
            let id = c["id"] as! String
            if let hex = c["update_v1_hex"] as? String { out.append(GoldenUpdate(label: id, bytes: Hex.decode(hex))) }
            for (i, inc) in (c["incremental_updates"] as? [[String: Any]] ?? []).enumerated() {
                out.append(GoldenUpdate(label: "\(id) incremental[\(i)]", bytes: Hex.decode(inc["hex"] as! String)))
            }
            for (name, doc) in (c["other_docs"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
                let hex = (doc as! [String: Any])["update_v1_hex"] as! String
                out.append(GoldenUpdate(label: "\(id) other_docs.\(name)", bytes: Hex.decode(hex)))
            }
            for (i, hex) in (c["inputs_hex"] as? [String] ?? []).enumerated() {
                out.append(GoldenUpdate(label: "\(id) inputs[\(i)]", bytes: Hex.decode(hex)))
            }
            for key in ["merged_hex", "merged_with_gap_hex"] {
                if let hex = c[key] as? String { out.append(GoldenUpdate(label: "\(id) \(key)", bytes: Hex.decode(hex))) }
            }
            for (i, d) in (c["diffs"] as? [[String: Any]] ?? []).enumerated() {
                out.append(GoldenUpdate(label: "\(id) diffs[\(i)]", bytes: Hex.decode(d["update_v1_hex"] as! String)))
            }
        }
        return out
    }

    /// Groups of updates that belong together (one case's incremental updates, or the
    /// merge inputs), for merge/diff properties.
    static var updateSets: [(label: String, updates: [[UInt8]])] {
        var out: [(String, [[UInt8]])] = []
        for c in SharedFixtures.cases {
            let id = c["id"] as! String
            if let incs = c["incremental_updates"] as? [[String: Any]], incs.count > 1 {
                out.append((id, incs.map { Hex.decode($0["hex"] as! String) }))
            }
            if let inputs = c["inputs_hex"] as? [String] { out.append(("\(id) inputs", inputs.map(Hex.decode))) }
        }
        return out
    }
}

/// Compares a ``DecodedUpdate`` with a `decoded_update` object from vectors.json and lists
/// every field that differs (empty when they match).
enum DecodedVector {
    static func mismatches(_ u: DecodedUpdate, _ expected: [String: Any]) -> [String] {
        var out: [String] = []
        let groups = expected["client_groups"] as! [[String: Any]]
        if groups.count != u.groups.count {
            out.append("group count \(u.groups.count) != \(groups.count)")
        }
        for (gi, (g, eg)) in zip(u.groups, groups).enumerated() {
            let at = "group[\(gi)]"
            check(&out, "\(at).client", g.client, UInt64(eg["client"] as! Int))
            check(&out, "\(at).num_structs", g.structs.count, eg["num_structs"] as! Int)
            if let first = g.structs.first { check(&out, "\(at).start_clock", first.id.clock, eg["start_clock"] as! Int) }
            for (si, (s, es)) in zip(g.structs, eg["structs"] as! [[String: Any]]).enumerated() {
                structMismatches(&out, "\(at).structs[\(si)]", s, es)
            }
        }
        deleteSetMismatches(&out, u.deleteSet, expected["delete_set"] as! [[String: Any]])
        return out
    }

    static func check<T: Equatable>(_ out: inout [String], _ path: String, _ actual: T, _ expected: T) {
        if actual != expected { out.append("\(path): \(actual) != expected \(expected)") }
    }

    static func id(_ any: Any?) -> ID? {
        guard let pair = any as? [Int] else { return nil }
        return ID(client: UInt64(pair[0]), clock: pair[1])
    }

    /// The info byte as written on the wire.
    static func info(_ s: UpdateStruct) -> Int {
        var w = ByteWriter()
        s.write(to: &w)
        return Int(w.bytes[0])
    }

    static func structMismatches(_ out: inout [String], _ at: String, _ s: UpdateStruct, _ e: [String: Any]) {
        check(&out, "\(at).clock", s.id.clock, e["clock"] as! Int)
        check(&out, "\(at).length", s.length, e["length"] as! Int)
        check(&out, "\(at).info", info(s), e["info"] as! Int)
        let kind = e["kind"] as! String
        switch s {
        case .gc: check(&out, "\(at).kind", "GC", kind)
        case .skip: check(&out, "\(at).kind", "Skip", kind)
        case .item(let item):
            check(&out, "\(at).kind", "Item", kind)
            check(&out, "\(at).origin", item.origin, id(e["origin"]))
            check(&out, "\(at).right_origin", item.rightOrigin, id(e["right_origin"]))
            let parent: StructParent? = switch e["parent"] {
            case let p as [String: Any] where p["root"] != nil: .root(p["root"] as! String)
            case let p as [String: Any]: .item(id(p["id"])!)
            default: nil
            }
            check(&out, "\(at).parent", item.parent, parent)
            check(&out, "\(at).parent_sub", item.parentSub, e["parent_sub"] as? String)
            let flagOnly = e["parent_sub_flag_only"] as? Bool ?? false
            check(&out, "\(at).parent_sub_flag_only", item.hasParentSub && item.parentSub == nil, flagOnly)
            contentMismatches(&out, "\(at).content", item.content, e["content"] as! [String: Any])
        }
    }

    static func contentMismatches(_ out: inout [String], _ at: String, _ c: StructContent, _ e: [String: Any]) {
        let kind = e["kind"] as! String
        switch c {
        case .string(let units):
            check(&out, "\(at).kind", "String", kind)
            check(&out, "\(at).value", String(decoding: units, as: UTF16.self), e["value"] as! String)
            check(&out, "\(at).utf16_length", units.count, e["utf16_length"] as! Int)
        case .deleted(let n):
            check(&out, "\(at).kind", "Deleted", kind)
            check(&out, "\(at).length", n, e["length"] as! Int)
        case .format(let key, let value):
            check(&out, "\(at).kind", "Format", kind)
            check(&out, "\(at).key", key, e["key"] as! String)
            jsonMismatches(&out, at, value, e["json_string"] as! String)
        case .embed(let value):
            check(&out, "\(at).kind", "Embed", kind)
            jsonMismatches(&out, at, value, e["json_string"] as! String)
        case .any(let values):
            check(&out, "\(at).kind", "Any", kind)
            let expected = e["values"] as! [[String: Any]]
            check(&out, "\(at).values.count", values.count, expected.count)
            for (i, (v, ev)) in zip(values, expected).enumerated() { valueMismatches(&out, "\(at).values[\(i)]", v, ev) }
        case .type(let t):
            check(&out, "\(at).kind", "Type", kind)
            check(&out, "\(at).type_ref", t.ref, e["type_ref"] as! Int)
            let names = ["YArray", "YMap", "YText", "YXmlElement", "YXmlFragment", "YXmlHook", "YXmlText"]
            if t.ref < names.count { check(&out, "\(at).type_name", names[t.ref], e["type_name"] as! String) }
            switch t {
            case .xmlElement(let name), .xmlHook(let name): check(&out, "\(at).name", name, e["name"] as? String ?? "<none>")
            default: check(&out, "\(at).name", nil, e["name"] as? String)
            }
        case .doc(let guid, let options):
            check(&out, "\(at).kind", "Doc", kind)
            check(&out, "\(at).guid", guid, e["guid"] as! String)
            valueMismatches(&out, "\(at).opts", options, e["opts"] as! [String: Any])
        case .binary(let bytes):
            check(&out, "\(at).kind", "Binary", kind)
            check(&out, "\(at).hex", Hex.encode(bytes), e["hex"] as? String ?? "<none>")
        case .json(let values):
            check(&out, "\(at).kind", "JSON", kind)
            check(&out, "\(at).count", values.count, (e["values"] as? [Any])?.count ?? -1)
        }
    }

    /// Format values and embeds: equal after parsing, and re-serialised to the same text
    /// (Yjs writes them back with JSON.stringify).
    static func jsonMismatches(_ out: inout [String], _ at: String, _ value: AnyValue, _ text: String) {
        check(&out, "\(at).json_string (parsed)", value, try? AnyValue(jsonText: text))
        check(&out, "\(at).json_string (re-serialised)", value.jsonText, text)
    }

    /// "any" values. Floats read from the wire become integers when integral (what a JS
    /// peer sees), so the expected float is compared by the value it denotes, bit-exact.
    static func valueMismatches(_ out: inout [String], _ at: String, _ v: AnyValue, _ e: [String: Any]) {
        let type = e["type"] as! String
        switch type {
        case "null": check(&out, at, v, .null)
        case "undefined": check(&out, at, v, .undefined)
        case "bool": check(&out, at, v, .bool(e["value"] as! Bool))
        case "string": check(&out, at, v, .string(e["value"] as! String))
        case "int": check(&out, at, v, .int(Int64(e["value"] as! Int)))
        case "bigint": check(&out, at, v, .int(Int64(e["value"] as! String)!))
        case "bytes": check(&out, at, v, .bytes(Hex.decode(e["hex"] as! String)))
        case "float32", "float64":
            let bits = Hex.decode(e["hex"] as! String).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let d = type == "float32" ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits)
            let expected = AnyValue.number(d)
            if case .double(let a) = v, case .double(let b) = expected {
                if a.bitPattern != b.bitPattern { out.append("\(at): \(a) != expected \(b) (bits)") }
            } else {
                check(&out, at, v, expected)
            }
        case "array":
            guard case .array(let items) = v else { out.append("\(at): \(v) is not an array"); return }
            let expected = e["items"] as! [[String: Any]]
            check(&out, "\(at).count", items.count, expected.count)
            for (i, (x, ex)) in zip(items, expected).enumerated() { valueMismatches(&out, "\(at)[\(i)]", x, ex) }
        case "object":
            guard case .object(let o) = v else { out.append("\(at): \(v) is not an object"); return }
            let expected = e["entries"] as! [[Any]]
            // Entries in wire order (the decoder keeps the order it read).
            check(&out, "\(at).keys", o.keys, expected.map { $0[0] as! String })
            for (i, ((_, x), ex)) in zip(o.entries, expected).enumerated() {
                valueMismatches(&out, "\(at).entries[\(i)]", x, ex[1] as! [String: Any])
            }
        default:
            out.append("\(at): unknown expected type \(type)")
        }
    }

    static func deleteSetMismatches(_ out: inout [String], _ ds: DeleteSet, _ expected: [[String: Any]]) {
        var want: [ClientID: [DeleteSet.Range]] = [:]
        for entry in expected {
            let ranges = (entry["ranges"] as! [[Int]]).map { DeleteSet.Range(clock: $0[0], length: $0[1]) }
            want[UInt64(entry["client"] as! Int), default: []].append(contentsOf: ranges)
        }
        check(&out, "delete_set", ds.clients.filter { !$0.value.isEmpty }, want)
    }
}

extension DecodedUpdate {
    /// Decodes golden bytes, failing loudly (test helper).
    static func decodeGolden(_ hex: String) -> DecodedUpdate {
        do { return try decode(Hex.decode(hex)) } catch { fatalError("golden update \(hex) does not decode: \(error)") }
    }
}
