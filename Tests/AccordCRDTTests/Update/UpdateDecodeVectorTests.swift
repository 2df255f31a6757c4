import Foundation
import Testing
@testable import AccordCRDT

/// Every update in vectors.json decodes to its recorded `decoded_update`, field by field,
/// and encodes back to the same bytes.
@Suite struct UpdateDecodeVectorTests {
    /// Updates in which Yrs wrote a number with another "any" tag than Yjs would
    /// (vectors.json `yrs_vs_yjs_notes`: Yrs writes every number as float32 or float64;
    /// Yjs writes integers up to 2^31-1, and -0, as varInt). ``AnyValue`` re-encodes with
    /// the Yjs rule, so for these the round trip is checked on the decoded structure, and
    /// full updates are checked against the bytes Yjs wrote (yjs_crosscheck.json).
    /// Found from the recorded decodings; at pycrdt 0.14.13 they are: map_set_overwrite
    /// incremental[0]; nested_map_in_array and its incremental[1]; nested_types_all and
    /// incremental[0]; array_mixed_any and incremental[0...6, 12, 22, 23];
    /// array_delete_ranges and incremental[0]; gc_deleted_nested_type incremental[0];
    /// no_gc_deleted_nested_type and incremental[0].
    static func hasNumberTagDifference(_ decoded: [String: Any]) -> Bool {
        func retagged(_ v: [String: Any]) -> Bool {
            switch v["type"] as! String {
            case "float32", "float64":
                let d = (v["value"] as! NSNumber).doubleValue
                let yjsTag = d.rounded(.towardZero) == d && d.magnitude <= 2_147_483_647 ? "int"
                    : Double(Float(d)) == d || d.isInfinite ? "float32" : "float64"
                return yjsTag != v["type"] as! String
            case "array": return (v["items"] as! [[String: Any]]).contains(where: retagged)
            case "object": return (v["entries"] as! [[Any]]).contains { retagged($0[1] as! [String: Any]) }
            default: return false
            }
        }
        for g in decoded["client_groups"] as! [[String: Any]] {
            for s in g["structs"] as! [[String: Any]] {
                guard let content = s["content"] as? [String: Any] else { continue }
                if let values = content["values"] as? [[String: Any]], values.contains(where: retagged) { return true }
                if let opts = content["opts"] as? [String: Any], retagged(opts) { return true }
            }
        }
        return false
    }

    @Test func numberTagCasesAreTheExpectedOnes() {
        let labels = Self.entries.filter(\.numberTagDifference).map(\.label)
        #expect(labels.count == 21, "\(labels)")
        #expect(labels.contains("array_mixed_any") && !labels.contains("text_insert"))
    }

    struct Entry: Sendable, CustomStringConvertible {
        var label: String
        var hex: String
        /// The recorded `decoded` object as JSON (Foundation objects are not Sendable).
        var decodedJSON: Data
        var numberTagDifference: Bool
        var description: String { label }
        var expected: [String: Any] { try! JSONSerialization.jsonObject(with: decodedJSON) as! [String: Any] }

        init(label: String, hex: String, decoded: [String: Any]) {
            self.label = label
            self.hex = hex
            decodedJSON = try! JSONSerialization.data(withJSONObject: decoded)
            numberTagDifference = UpdateDecodeVectorTests.hasNumberTagDifference(decoded)
        }
    }

    /// Every (bytes, decoded) pair: full updates and incremental updates.
    static var entries: [Entry] {
        var out: [Entry] = []
        for c in SharedFixtures.cases {
            let id = c["id"] as! String
            if let decoded = c["decoded_update"] as? [String: Any], let hex = c["update_v1_hex"] as? String {
                out.append(Entry(label: id, hex: hex, decoded: decoded))
            }
            for (i, inc) in (c["incremental_updates"] as? [[String: Any]] ?? []).enumerated() {
                out.append(Entry(label: "\(id) incremental[\(i)]", hex: inc["hex"] as! String,
                                 decoded: inc["decoded"] as! [String: Any]))
            }
        }
        return out
    }

    @Test func vectorsHoldTheExpectedUpdates() {
        // 26 full updates with a recorded decoding (merge_updates and the two protocol
        // cases have none) and 80 incremental updates.
        #expect(Self.entries.count == 26 + 80)
    }

    @Test(arguments: entries)
    func decodesFieldByField(_ entry: Entry) throws {
        let decoded = try DecodedUpdate.decode(Hex.decode(entry.hex))
        let problems = DecodedVector.mismatches(decoded, entry.expected)
        #expect(problems.isEmpty, "\(entry.label): \(problems.joined(separator: "\n"))")
    }

    @Test(arguments: entries)
    func encodesBackToTheSameBytes(_ entry: Entry) throws {
        let decoded = try DecodedUpdate.decode(Hex.decode(entry.hex))
        let encoded = decoded.encode()
        if entry.numberTagDifference {
            #expect(Hex.encode(encoded) != entry.hex, "\(entry.label) was expected to differ by number tags only")
            let again = try DecodedUpdate.decode(encoded)
            #expect(again == decoded)
            let problems = DecodedVector.mismatches(again, entry.expected)
            #expect(problems.isEmpty, "\(entry.label): \(problems.joined(separator: "\n"))")
        } else {
            #expect(Hex.encode(encoded) == entry.hex)
        }
    }

    /// For full updates that differ from Yjs only by number tags, the re-encoded bytes are
    /// exactly what Yjs 13.6.31 wrote after loading the Yrs bytes.
    @Test(arguments: ["nested_map_in_array", "nested_types_all", "array_mixed_any", "array_delete_ranges"])
    func reencodedNumbersMatchYjs(_ id: String) throws {
        let c = SharedFixtures.vectorCase(id)
        let yjs = (SharedFixtures.crosscheck["cases"] as! [String: Any])[id] as! [String: Any]
        let decoded = try DecodedUpdate.decode(Hex.decode(c["update_v1_hex"] as! String))
        #expect(Hex.encode(decoded.encode()) == yjs["yjs_encodeStateAsUpdate_hex"] as! String)
    }

    /// The 0x20 bit without a key (info a8) survives a decode/encode round trip.
    @Test func parentSubFlagWithoutKeyRoundTrips() throws {
        let hex = "01010101a8010001770374776f0101010001"
        let decoded = try DecodedUpdate.decode(Hex.decode(hex))
        guard case .item(let item) = decoded.groups[0].structs[0] else { Issue.record("not an item"); return }
        #expect(item.hasParentSub && item.parentSub == nil)
        #expect(Hex.encode(decoded.encode()) == hex)
    }
}
