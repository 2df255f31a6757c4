/// The attachments a ``Doc`` references, kept current from each transaction's changes
/// rather than by walking the whole document again.
///
/// Every attachment is held by one struct, named by its ID (which splits and merges
/// of items never change): a value element of an `any`/`json`/`embed` item (the
/// attachment values inside it), or the item holding a map whose entries form one. A
/// transaction adds what its new items hold, re-reads the maps it changed, and drops
/// what its delete set covers; deleting a shared type deletes everything inside it,
/// so nothing under a deleted map is left counted. Root maps, held by no item, are
/// kept by name.
final class AttachmentTracker {
    /// Per client (index), the clocks of structs holding attachments, with what they hold.
    private var held: [ClientIndex: [UInt32: [BlobRef]]] = [:]
    /// Root maps whose entries form an attachment.
    private var roots: [String: BlobRef] = [:]
    /// How many holders reference each hash, and with which values.
    private var counts: [String: [BlobRef: Int]] = [:]
    /// Hashes that went from unreferenced to referenced (or back) in the transaction
    /// being applied.
    private var appeared: Set<String> = []
    private var vanished: Set<String> = []
    var listeners: [(id: Int, handler: (AttachmentChange) -> Void)] = []

    /// Builds the index of `store` as it is (every struct counts as new).
    init(store: Store) {
        for client in 0..<store.clientStructs.count {
            scanInserted(store, client: ClientIndex(client), from: 0)
        }
        for (name, t) in store.roots where store.types[Int(t)].kind == .map {
            setRoot(name, Self.mapBlob(store, type: t))
        }
        appeared.removeAll()
        vanished.removeAll()
    }

    /// The distinct attachments, one per hash (the least of its values when several
    /// differ in name or type), in hash order.
    var attachments: [BlobRef] {
        counts.values.compactMap { $0.keys.min() }.sorted()
    }

    func references(_ hash: String) -> Bool { counts[hash] != nil }

    /// Applies one finished transaction (before garbage collection, so its deleted
    /// items are still in the store) and tells the listeners what appeared or vanished.
    func transactionEnded(_ store: Store, _ tr: TransactionState) {
        for client in 0..<store.clientState.count {
            let c = ClientIndex(client)
            let before = tr.before(c)
            if store.clientState[client] > before { scanInserted(store, client: c, from: before) }
        }
        // With no blob key in the document and no blob held, every changed map would be
        // found to hold none and to have held none: skip them (a batch of records changes
        // one map per record, and each was a few hashed look-ups).
        let mapsMayHoldBlobs = !held.isEmpty || !roots.isEmpty || store.keyIndex[ExactKey(BlobRef.key)] != nil
        for (t, _) in mapsMayHoldBlobs ? tr.changedKeys : [:] where store.types[Int(t)].kind == .map {
            let holder = store.types[Int(t)].item
            if holder == noItem {
                if let name = store.types[Int(t)].rootName { setRoot(name, Self.mapBlob(store, type: t)) }
            } else {
                let item = store.items[Int(holder)]
                set(client: item.client, clock: item.clock, item.deleted ? [] : Self.mapBlob(store, type: t).map { [$0] } ?? [])
            }
        }
        if !tr.deletes.isEmpty { removeDeleted(tr.deletes) }
        guard !appeared.isEmpty || !vanished.isEmpty else { return }
        let change = AttachmentChange(added: appeared.subtracting(vanished), removed: vanished.subtracting(appeared))
        appeared.removeAll()
        vanished.removeAll()
        guard !change.added.isEmpty || !change.removed.isEmpty else { return }
        for (_, handler) in listeners { handler(change) }
    }

    // MARK: Holders

    /// Records what the structs of `client` from clock `start` on hold.
    private func scanInserted(_ store: Store, client: ClientIndex, from start: UInt32) {
        guard let first = store.findIndex(client: client, clock: start) else { return }
        // A map can hold a blob only once the blob key was ever used in this document:
        // looked up once here, not for every map inserted (a record is one or two).
        let blobKeyUsed = store.keyIndex[ExactKey(BlobRef.key)] != nil
        let structs = store.clientStructs[Int(client)]
        for position in first..<structs.count {
            let ref = structs[position]
            let item = store.items[Int(ref)]
            guard !item.deleted else { continue }
            switch item.kind {
            case .any, .json:
                // Only arrays and objects can hold a blob; most values are neither.
                let range = Int(item.a)..<Int(item.a + item.length)
                guard store.valuePool[range].contains(where: BlobRef.mayContain) else { continue }
                for (offset, value) in store.values(of: item).enumerated() where BlobRef.mayContain(value) {
                    let clock = item.clock + UInt32(offset)
                    guard clock >= start else { continue }
                    var found: [BlobRef] = []
                    BlobRef.collect(from: value, into: &found)
                    if !found.isEmpty { set(client: client, clock: clock, found) }
                }
            case .embed:
                guard item.clock >= start, case .embed(let value) = store.payloads[Int(item.a)] else { continue }
                var found: [BlobRef] = []
                BlobRef.collect(from: value, into: &found)
                if !found.isEmpty { set(client: client, clock: item.clock, found) }
            case .type:
                guard blobKeyUsed, item.clock >= start, store.types[Int(item.a)].kind == .map,
                    let blob = Self.mapBlob(store, type: Int32(item.a))
                else { continue }
                set(client: client, clock: item.clock, [blob])
            default:
                continue
            }
        }
    }

    /// Drops every holder the delete set covers.
    private func removeDeleted(_ deletes: LocalDeleteSet) {
        for range in deletes.ranges {
            guard let clocks = held[range.client], !clocks.isEmpty else { continue }
            if Int(range.length) <= clocks.count {
                for clock in range.clock..<range.end where clocks[clock] != nil {
                    set(client: range.client, clock: clock, [])
                }
            } else {
                for clock in clocks.keys where clock >= range.clock && clock < range.end {
                    set(client: range.client, clock: clock, [])
                }
            }
        }
    }

    /// Replaces what the struct at `client`/`clock` holds.
    private func set(client: ClientIndex, clock: UInt32, _ blobs: [BlobRef]) {
        let old = held[client]?[clock] ?? []
        guard old != blobs else { return }
        for blob in old { release(blob) }
        for blob in blobs { retain(blob) }
        if blobs.isEmpty {
            held[client]?[clock] = nil
        } else {
            held[client, default: [:]][clock] = blobs
        }
    }

    private func setRoot(_ name: String, _ blob: BlobRef?) {
        let old = roots[name]
        guard old != blob else { return }
        if let old { release(old) }
        if let blob { retain(blob) }
        roots[name] = blob
    }

    private func retain(_ blob: BlobRef) {
        if counts[blob.hash] == nil { appeared.insert(blob.hash) }
        counts[blob.hash, default: [:]][blob, default: 0] += 1
    }

    private func release(_ blob: BlobRef) {
        guard var values = counts[blob.hash], let count = values[blob] else { return }
        values[blob] = count > 1 ? count - 1 : nil
        if values.isEmpty {
            counts[blob.hash] = nil
            vanished.insert(blob.hash)
        } else {
            counts[blob.hash] = values
        }
    }

    /// The attachment a map type's current entries form, or nil.
    static func mapBlob(_ store: Store, type t: Int32) -> BlobRef? {
        let record = store.types[Int(t)]
        guard let keyIndex = store.keyIndex[ExactKey(BlobRef.key)], record.map[keyIndex] != nil else { return nil }
        return BlobRef(fields: { key in
            guard let k = store.knownKey(key), let ref = record.map[k] else { return nil }
            let item = store.items[Int(ref)]
            guard !item.deleted else { return nil }
            switch item.kind {
            case .any, .json: return store.values(of: item).last
            case .string: return .string(String(decoding: store.string(of: item), as: UTF16.self))
            default: return nil
            }
        })
    }
}

/// Hashes a transaction made referenced or unreferenced in one document.
public struct AttachmentChange: Hashable, Sendable {
    public var added: Set<String>
    public var removed: Set<String>
}
