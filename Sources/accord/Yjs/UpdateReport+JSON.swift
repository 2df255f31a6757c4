import AccordCRDT

/// The `--json` form. Shapes follow `design/vectors/vectors.json` where it has one
/// (IDs as `[client, clock]`, delete ranges as `[clock, length]`, state vectors as
/// `[[client, clock]]`), so the two can be compared by script.
extension UpdateReport {
    var json: AnyValue {
        .object(OrderedObject([
            ("bytes", .int(Int64(byteCount))),
            ("client_groups", .array(update.groups.map(Self.groupJSON))),
            ("state_vector_from_update", Self.svJSON(updateStateVector)),
            ("delete_set", .array(deleteSetEntries.map { e in
                .object(OrderedObject([
                    ("client", Self.clientJSON(e.client)),
                    ("ranges", .array(e.ranges.map { .array([.int(Int64($0.clock)), .int(Int64($0.length))]) })),
                ]))
            })),
            ("state_vector", Self.svJSON(docStateVector)),
            ("pending", .bool(hasPending)),
            ("roots", .array(roots.map { root in
                .object(OrderedObject([
                    ("name", .string(root.name)),
                    ("kind", .string(Self.kindName(root.kind))),
                    ("json", root.json),
                ]))
            })),
        ]))
    }

    static func groupJSON(_ group: DecodedUpdate.ClientGroup) -> AnyValue {
        .object(OrderedObject([
            ("client", clientJSON(group.client)),
            ("start_clock", .int(Int64(group.structs.first?.id.clock ?? 0))),
            ("structs", .array(group.structs.map(structJSON))),
        ]))
    }

    static func structJSON(_ s: UpdateStruct) -> AnyValue {
        switch s {
        case .gc(let id, let n):
            return .object(OrderedObject([("clock", .int(Int64(id.clock))), ("kind", "GC"), ("length", .int(Int64(n)))]))
        case .skip(let id, let n):
            return .object(OrderedObject([("clock", .int(Int64(id.clock))), ("kind", "Skip"), ("length", .int(Int64(n)))]))
        case .item(let item):
            let parent: AnyValue
            switch item.parent {
            case .root(let name)?: parent = .object(OrderedObject([("root", .string(name))]))
            case .item(let id)?: parent = .object(OrderedObject([("item", idJSON(id))]))
            case nil: parent = .null
            }
            return .object(OrderedObject([
                ("clock", .int(Int64(item.id.clock))),
                ("kind", "Item"),
                ("length", .int(Int64(item.length))),
                ("origin", item.origin.map(idJSON) ?? .null),
                ("right_origin", item.rightOrigin.map(idJSON) ?? .null),
                ("parent", parent),
                ("parent_sub", item.parentSub.map { .string($0) } ?? .null),
                ("has_parent_sub", .bool(item.hasParentSub)),
                ("content", item.content.jsonValue),
            ]))
        }
    }

    static func idJSON(_ id: ID) -> AnyValue { .array([clientJSON(id.client), .int(Int64(id.clock))]) }

    /// Client IDs are 32-bit in practice; the decoder accepts up to 64, which clamps here.
    static func clientJSON(_ client: ClientID) -> AnyValue { .int(Int64(clamping: client)) }

    static func svJSON(_ sv: StateVector) -> AnyValue {
        .array(entries(sv).map { .array([clientJSON($0.client), .int(Int64($0.clock))]) })
    }
}
