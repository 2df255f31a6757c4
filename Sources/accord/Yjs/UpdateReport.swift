import AccordCRDT

/// Everything `accord yjs inspect` shows about one update, gathered once and then
/// rendered as text (``text``) or JSON (``json``) so the two never disagree.
struct UpdateReport {
    /// One root type of the document the update builds.
    struct Root {
        var name: String
        var kind: TypeKind
        var json: AnyValue
    }

    var byteCount: Int
    var update: DecodedUpdate
    /// What `encodeStateVectorFromUpdate` reads from the bytes alone (gap-free prefixes).
    var updateStateVector: StateVector
    /// The state of a fresh document after applying the update.
    var docStateVector: StateVector
    /// Whether the document still waits for structs or deletions the update depends on.
    var hasPending: Bool
    var roots: [Root]

    /// - Throws: ``ErrorCode/malformedUpdate`` when `bytes` is not an update v1.
    init(_ bytes: [UInt8]) throws(AccordError) {
        byteCount = bytes.count
        update = try DecodedUpdate.decode(bytes)
        updateStateVector = try StateVector.decode(encodeStateVectorFromUpdate(bytes))
        let doc = Doc()
        try doc.applyUpdate(bytes)
        docStateVector = doc.stateVector
        hasPending = doc.hasPendingUpdates
        roots = doc.rootNames.compactMap { name in
            guard let kind = doc.rootKind(name: name), let json = doc.inferredRootJSON(name: name) else { return nil }
            return Root(name: name, kind: kind, json: json)
        }
    }

    var structCount: Int { update.groups.reduce(0) { $0 + $1.structs.count } }

    /// Clients descending, the order Yjs writes state vectors in.
    static func entries(_ sv: StateVector) -> [(client: ClientID, clock: Int)] {
        sv.clocks.filter { $0.value > 0 }.sorted { $0.key > $1.key }.map { ($0.key, $0.value) }
    }

    /// Normalized ranges, clients descending (Yjs's order on the wire).
    var deleteSetEntries: [(client: ClientID, ranges: [DeleteSet.Range])] {
        var ds = update.deleteSet
        ds.normalize()
        return ds.clients.filter { !$0.value.isEmpty }.sorted { $0.key > $1.key }.map { ($0.key, $0.value) }
    }

    static func kindName(_ kind: TypeKind) -> String {
        switch kind {
        case .array: "array"
        case .map: "map"
        case .text: "text"
        case .xmlFragment: "xmlFragment"
        case .xmlText: "xmlText"
        case .xmlElement: "xmlElement"
        case .xmlHook: "xmlHook"
        case .other(let ref): "other(\(ref))"
        }
    }
}
