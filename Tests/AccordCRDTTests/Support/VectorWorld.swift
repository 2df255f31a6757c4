import Foundation
@testable import AccordCRDT

/// Replays the op lists of `vectors.json` on Accord documents (the Swift twin of
/// `make_vectors.py`'s World), recording each document's update events.
final class VectorWorld {
    var docs: [String: Doc] = [:]
    var updates: [String: [[UInt8]]] = [:]
    var roots: [String: String] = [:]
    var subscriptions: [Subscription] = []

    func run(_ ops: [[String: Any]]) throws {
        for op in ops { try apply(op) }
    }

    func apply(_ op: [String: Any], doc forced: String? = nil) throws {
        let kind = op["op"] as! String
        let name = forced ?? (op["doc"] as? String ?? "")
        switch kind {
        case "new_doc":
            let d = Doc(clientID: (op["client_id"] as! NSNumber).uint64Value, gc: !((op["skip_gc"] as? Bool) ?? false))
            docs[name] = d
            updates[name] = []
            subscriptions.append(d.onUpdate { [unowned self] update, _ in self.updates[name]!.append(update) })
        case "transact":
            try docs[name]!.transact {
                for sub in op["ops"] as! [[String: Any]] { try apply(sub, doc: name) }
            }
        case "text_insert":
            try text(op, name).insert(op["index"] as! Int, op["value"] as! String, attributes: attrs(op["attrs"]))
        case "text_insert_embed":
            try text(op, name).insertEmbed(op["index"] as! Int, JSONBridge.value(op["value"]!), attributes: attrs(op["attrs"]) ?? [:])
        case "text_delete":
            try text(op, name).delete(op["index"] as! Int, op["length"] as! Int)
        case "text_format":
            try text(op, name).format(op["index"] as! Int, op["length"] as! Int, attrs(op["attrs"])!)
        case "array_insert":
            let a = try target(op, name, "array").array!
            // pycrdt inserts one value per transaction; do the same so updates match.
            for (i, v) in (op["values"] as! [Any]).enumerated() {
                try a.doc.transact { try insert(v, into: a, at: (op["index"] as! Int) + i) }
            }
        case "array_delete":
            try target(op, name, "array").array!.delete(op["index"] as! Int, count: op["length"] as! Int)
        case "map_set":
            let m = try target(op, name, "map").map!
            try m.doc.transact { try set(op["value"]!, in: m, key: op["key"] as! String) }
        case "map_delete":
            try target(op, name, "map").map!.delete(op["key"] as! String)
        case "sync":
            let from = docs[op["from"] as! String]!, to = docs[op["to"] as! String]!
            try to.applyUpdate(try from.encodeStateAsUpdate(from: to.encodeStateVector()))
        case "apply_incremental":
            try docs[op["to"] as! String]!.applyUpdate(updates[op["from"] as! String]![op["index"] as! Int])
        default:
            throw VectorError.unsupported(kind)
        }
    }

    enum VectorError: Error { case unsupported(String) }

    private func attrs(_ any: Any?) -> OrderedObject? {
        guard let o = any as? [String: Any] else { return nil }
        return OrderedObject(o.keys.sorted().map { ($0, JSONBridge.value(o[$0]!)) })
    }

    private func text(_ op: [String: Any], _ doc: String) throws -> YText {
        try target(op, doc, "text").text!
    }

    func target(_ op: [String: Any], _ doc: String, _ kind: String) throws -> YValue {
        let path = op["path"] as! [Any]
        let rootName = path[0] as! String
        let rootKind = roots[rootName] ?? (op["root_type"] as? String ?? kind)
        roots[rootName] = rootKind
        let d = docs[doc]!
        var t: YValue
        switch rootKind {
        case "text": t = .text(try d.getText(rootName))
        case "array": t = .array(try d.getArray(rootName))
        default: t = .map(try d.getMap(rootName))
        }
        for p in path.dropFirst() {
            if let key = p as? String { t = t.map!.get(key)! } else { t = try t.array!.get(p as! Int) }
        }
        return t
    }

    private func insert(_ v: Any, into a: YArray, at index: Int) throws {
        if let o = v as? [String: Any], let nested = o["$map"] as? [String: Any] {
            let m = try a.insertMap(index)
            for k in nested.keys.sorted() { try set(nested[k]!, in: m, key: k) }
        } else if let o = v as? [String: Any], let nested = o["$array"] as? [Any] {
            let inner = try a.insertArray(index)
            for (i, x) in nested.enumerated() { try insert(x, into: inner, at: i) }
        } else if let o = v as? [String: Any], let s = o["$text"] as? String {
            try a.insertText(index).insert(0, s)
        } else {
            try a.insert(index, [JSONBridge.value(v)])
        }
    }

    private func set(_ v: Any, in m: YMap, key: String) throws {
        if let o = v as? [String: Any], let nested = o["$map"] as? [String: Any] {
            let inner = try m.setMap(key)
            for k in nested.keys.sorted() { try set(nested[k]!, in: inner, key: k) }
        } else if let o = v as? [String: Any], let nested = o["$array"] as? [Any] {
            let inner = try m.setArray(key)
            for (i, x) in nested.enumerated() { try insert(x, into: inner, at: i) }
        } else if let o = v as? [String: Any], let s = o["$text"] as? String {
            try m.setText(key).insert(0, s)
        } else {
            try m.set(key, JSONBridge.value(v))
        }
    }
}

/// The JSON view that vectors.json records for a root: text as string + delta,
/// maps and arrays as JSON, XML as its string.
func vectorJSONView(_ doc: Doc, root name: String, like expected: Any) throws -> AnyValue {
    if let e = expected as? [String: Any], e["string"] != nil, e["delta"] != nil {
        let t = try doc.getText(name)
        let delta: [AnyValue] = t.delta.map { op in
            guard case .insert(let content, let attributes) = op else { return .null }
            let insert: AnyValue
            switch content {
            case .text(let s): insert = .string(s)
            case .embed(let v): insert = v
            case .type(let v): insert = v.json
            case .values(let vs): insert = .array(vs.map(\.json))
            }
            return .array([insert, attributes.map { .object($0) } ?? .null])
        }
        return .object(["string": .string(t.string), "delta": .array(delta)])
    }
    if expected is [Any] { return try doc.getArray(name).json }
    if expected is String { return .string(try doc.getXmlFragment(name).xmlString) }
    return vectorMapJSON(try doc.getMap(name))
}

/// Map JSON with sub-documents written the way the vectors do (`$subdoc_guid`).
func vectorMapJSON(_ m: YMap) -> AnyValue {
    .object(OrderedObject(m.entries.map { e -> (String, AnyValue) in
        switch e.value {
        case .subdocument(let guid): return (e.key, .object(["$subdoc_guid": .string(guid)]))
        case .map(let inner): return (e.key, vectorMapJSON(inner))
        default: return (e.key, e.value.json)
        }
    }))
}
