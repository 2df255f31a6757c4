import AccordCRDT

/// The human-readable form: one line per struct, `key=value` fields so it greps well.
extension UpdateReport {
    var text: String {
        var lines: [String] = []
        let clients = update.groups.count
        lines.append("update: \(byteCount) bytes, \(clients) client group\(clients == 1 ? "" : "s"), \(structCount) struct\(structCount == 1 ? "" : "s")")
        lines.append("structs:")
        for group in update.groups {
            let first = group.structs.first?.id.clock ?? 0
            let end = group.structs.last.map { $0.id.clock + $0.length } ?? first
            lines.append("  client \(group.client) (\(group.structs.count) struct\(group.structs.count == 1 ? "" : "s"), clocks \(first)..<\(end))")
            for s in group.structs { lines.append("    " + Self.line(s)) }
        }
        lines.append("state vector (from update): \(Self.svText(updateStateVector))")
        lines.append("delete set: \(deleteSetText)")
        lines.append("state vector (after applying): \(Self.svText(docStateVector))")
        lines.append("pending: \(hasPending ? "yes (structs or deletions wait for missing updates)" : "none")")
        lines.append("roots:")
        if roots.isEmpty { lines.append("  (none)") }
        for root in roots {
            let name = AnyValue.string(root.name).jsonText
            let kind = Self.kindName(root.kind)
            if root.kind == .text || root.kind == .xmlText, let string = root.json.objectValue?["string"],
               let delta = root.json.objectValue?["delta"] {
                lines.append("  \(name) (\(kind)): \(string.jsonText)")
                lines.append("    delta: \(delta.jsonText)")
            } else {
                lines.append("  \(name) (\(kind)): \(root.json.jsonText)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `<clock>  <Kind> len=<n> origin=.. right=.. parent=.. sub=..  <content>`.
    static func line(_ s: UpdateStruct) -> String {
        switch s {
        case .gc(let id, let n): return "\(id.clock)  GC len=\(n)"
        case .skip(let id, let n): return "\(id.clock)  Skip len=\(n)"
        case .item(let item):
            let parent: String
            switch item.parent {
            case .root(let name)?: parent = AnyValue.string(name).jsonText
            case .item(let id)?: parent = id.description
            case nil: parent = "-"
            }
            let sub: String
            if let key = item.parentSub {
                sub = AnyValue.string(key).jsonText
            } else {
                sub = item.hasParentSub ? "(key of origin)" : "-"
            }
            return "\(item.id.clock)  Item len=\(item.length) origin=\(item.origin?.description ?? "-") "
                + "right=\(item.rightOrigin?.description ?? "-") parent=\(parent) sub=\(sub)  \(item.content.summary)"
        }
    }

    static func svText(_ sv: StateVector) -> String {
        "{" + entries(sv).map { "\($0.client): \($0.clock)" }.joined(separator: ", ") + "}"
    }

    /// `client: [from, to) ...; client: ...`, or `none`.
    var deleteSetText: String {
        let entries = deleteSetEntries
        guard !entries.isEmpty else { return "none" }
        return entries.map { e in
            "\(e.client): " + e.ranges.map { "[\($0.clock), \($0.end))" }.joined(separator: " ")
        }.joined(separator: "; ")
    }
}
