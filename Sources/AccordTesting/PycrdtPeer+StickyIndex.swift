import AccordCRDT

/// pycrdt's sticky indices (Yjs relative positions) on a peer replica.
extension PycrdtPeer {
    /// The sticky index at `index` of `target` (ASCII text or an array): its bytes and JSON.
    public func stickyIndex(on doc: String, _ target: EditTarget, index: Int, before: Bool) throws -> (bytes: [UInt8], json: AnyValue) {
        let reply = try request([
            "cmd": "sticky", "doc": .string(doc), "root": .string(target.root), "root_kind": .string(target.rootKind.rawValue),
            "index": .int(Int64(index)), "assoc": .int(before ? -1 : 0),
        ])
        return (Hex.decode(reply["bytes"]?.stringValue ?? ""), reply["json"] ?? .null)
    }

    /// Where the sticky index `bytes` resolves in `target` of `doc`.
    public func resolveStickyIndex(_ bytes: [UInt8], on doc: String, _ target: EditTarget) throws -> Int? {
        let reply = try request([
            "cmd": "sticky_resolve", "doc": .string(doc), "root": .string(target.root),
            "root_kind": .string(target.rootKind.rawValue), "bytes": .string(Hex.encode(bytes)),
        ])
        return reply["index"]?.intValue.map(Int.init)
    }
}
