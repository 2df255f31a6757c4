import AccordCRDT

/// What one replica holds of a soak document, in a form replicas can compare: the
/// state vector (which updates it integrated), whether updates wait for a missing
/// predecessor (a converged replica has none), and the visible content of each root
/// the soak edits. Map entries are keyed, so the order a replica lists them in is no
/// part of the comparison.
struct DocumentSnapshot: Equatable, Sendable, CustomStringConvertible {
    static let textRoot = "t"
    static let mapRoot = "m"
    static let arrayRoot = "a"

    var stateVector: StateVector
    var hasPendingUpdates: Bool
    var text: String
    var map: [String: String]
    var array: [String]

    init(_ doc: Doc) throws(AccordError) {
        stateVector = doc.stateVector
        hasPendingUpdates = doc.hasPendingUpdates
        text = try doc.getText(Self.textRoot).string
        var map: [String: String] = [:]
        for (key, value) in try doc.getMap(Self.mapRoot).entries { map[key] = value.json.jsonText }
        self.map = map
        array = try doc.getArray(Self.arrayRoot).elements.map(\.json.jsonText)
    }

    var description: String {
        let entries = map.keys.sorted().map { "\($0)=\(map[$0] ?? "")" }.joined(separator: ",")
        return "sv \(stateVector)\(hasPendingUpdates ? " (pending)" : "") text \(text.count) chars \"\(text.prefix(40))…\" map {\(entries)} array \(array.count) items"
    }
}
