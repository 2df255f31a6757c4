public import AccordCRDT

/// A Yjs update (v1) that adds records the document does not hold yet, written
/// straight from their values, without a `Doc`: what a `Doc` transaction writing them
/// through ``RecordLayout`` would produce, but costing only the update's bytes.
///
/// Why: an ingest of a million new records into a `Doc` costs the whole document in
/// memory (about 700 MB at a million records) before one byte is stored; the update
/// itself is about a tenth of that. Applied to the document, the update yields the
/// same records a transaction would (``RecordLayout``'s layout), and any Yjs peer
/// reads it.
///
/// Only for ids the document's model maps do not hold yet (the caller checks): a new
/// key's item has no origin (Yjs `typeMapSet` with no current item), which is what makes
/// the item writable without the document. Every item is one client's, with clocks
/// from `startClock` on, in the order written; the delete set is empty.
///
/// Per record: the record's map item in the model's root map (parent: the root's name,
/// key: the id), then one item per field value in it (parent: the record's item) and,
/// for a string set, its map item and one `true` per member.
public struct NewRecordsUpdate {
    public let client: ClientID
    public let startClock: Int
    private var structs = ByteWriter(capacity: 1 << 16)
    /// The next item's clock.
    public private(set) var clock: Int

    public init(client: ClientID, startClock: Int) {
        self.client = client
        self.startClock = startClock
        self.clock = startClock
    }

    /// Whether no record was added.
    public var isEmpty: Bool { clock == startClock }

    /// Bytes of the structs written so far (the update is a few bytes more).
    public var byteCount: Int { structs.count }

    /// Adds record `id` of `model` with its checked values (``RecordLayout/check(_:removing:id:model:)``
    /// order; nil values, removals of fields a new record does not have, are skipped).
    mutating func add(id: String, model: String, values: [FieldChange]) {
        let record = clock
        writeMapItem(parent: .root(model), key: id)
        for change in values {
            guard let value = change.value else { continue }
            let field = change.field
            if case .stringSet(let set) = value {
                let members = clock
                writeMapItem(parent: .item(record), key: field)
                for member in set.members { writeValueItem(parent: members, key: member, .bool(true)) }
            } else {
                writeValueItem(parent: record, key: field, FieldCoding.content(value))
            }
        }
    }

    /// The update: the structs under their client's header, then an empty delete set.
    public func encoded() -> [UInt8] {
        var header = ByteWriter(capacity: 32)
        guard !isEmpty else {
            // No structs, no deletes: the empty update.
            header.writeVarUInt(0)
            header.writeVarUInt(0)
            return header.bytes
        }
        header.writeVarUInt(1)  // one client
        header.writeVarUInt(clock - startClock)  // its struct count: every item is one unit
        header.writeVarUInt(client)
        header.writeVarUInt(startClock)
        var update = ByteWriter(capacity: header.count + structs.count + 1)
        header.withUnsafeBytes { update.writeRaw($0) }
        structs.withUnsafeBytes { update.writeRaw($0) }
        update.writeUInt8(0)  // the delete set: no clients
        return update.takeBytes()
    }

    private enum Parent {
        case root(String)
        case item(Int)
    }

    /// Yjs's item header with no origins: the info byte (content ref, bit 6 for the key),
    /// then the parent (1 + root name, or 0 + the parent item's id), then the key.
    private mutating func writeHeader(contentRef: UInt8, parent: Parent, key: String) {
        structs.writeUInt8(contentRef | 0x20)
        switch parent {
        case .root(let name):
            structs.writeVarUInt(1)
            structs.writeVarString(name)
        case .item(let parentClock):
            structs.writeVarUInt(0)
            structs.writeVarUInt(client)
            structs.writeVarUInt(parentClock)
        }
        structs.writeVarString(key)
    }

    /// A `Y.Map` (content type, ref 7; type ref 1) under `key` of `parent`.
    private mutating func writeMapItem(parent: Parent, key: String) {
        writeHeader(contentRef: 7, parent: parent, key: key)
        structs.writeVarUInt(1)
        clock += 1
    }

    /// One value (content any, ref 8, of length 1) under `key` of the map item at `parentClock`.
    private mutating func writeValueItem(parent parentClock: Int, key: String, _ value: AnyValue) {
        writeHeader(contentRef: 8, parent: .item(parentClock), key: key)
        structs.writeVarUInt(1)
        value.write(to: &structs)
        clock += 1
    }
}
