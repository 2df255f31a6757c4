public import AccordCRDT

/// The Yjs client ID a document last wrote with on this device, so that reopening it
/// writes under the same ID and its state vector does not gain one entry per app
/// launch.
///
/// Reusing an ID is safe only when no update under it exists that the store lacks:
/// otherwise a new edit would reuse a clock another replica already holds with other
/// content. So the store reuses an ID only when
/// - the document was closed cleanly with that ID (everything it wrote was flushed
///   before the lease was written), recorded with the document's clock for the ID;
/// - the loaded document's clock for the ID is exactly that clock (nothing newer was
///   written under it elsewhere, nothing the lease counted is missing); and
/// - no other open of the document in this process holds it.
///
/// Reusing a lease invalidates it durably before the document is handed out, so a
/// crash while it is open (edits sent, perhaps not yet stored) makes the next open
/// take a new ID. Eviction and deletion drop the lease with the content.
struct ClientLease: Equatable {
    var clientID: ClientID
    /// The document's clock for `clientID` when the lease was written.
    var clock: UInt64

    /// 16 bytes: the client ID and the clock, little-endian.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for value in [clientID, clock] {
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        return bytes
    }

    /// Nil for anything but the 16 bytes ``encoded`` writes (such a lease is not reused).
    init?(encoded bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        func word(_ offset: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << UInt64($1 * 8) }
        }
        clientID = word(0)
        clock = word(8)
    }

    init(clientID: ClientID, clock: UInt64) {
        self.clientID = clientID
        self.clock = clock
    }

    /// The lease a document holds now: its client ID and its clock for it.
    init(of doc: Doc) {
        self.init(clientID: doc.clientID, clock: UInt64(doc.stateVector[doc.clientID]))
    }
}

extension DocumentStore {
    /// The client ID to open `id` with, when its lease allows reuse and no open of the
    /// document in this process holds one; the lease is invalidated durably first.
    func takeClientLease(_ id: DocumentID) throws(AccordError) -> ClientLease? {
        guard withLock({ openLeases[id, default: 0] == 0 }) else { return nil }
        guard let bytes = try storage.withAdapter({ try $0.read(DocumentCategories.clientLease, key: id.rawValue) }),
              let lease = ClientLease(encoded: bytes)
        else { return nil }
        try storage.withAdapter { try $0.commit([.delete(DocumentCategories.clientLease, key: id.rawValue)]) }
        return lease
    }

    /// Counts one more open of `id` (leases are reused only by the first).
    func leaseOpened(_ id: DocumentID) {
        withLock { openLeases[id, default: 0] += 1 }
    }

    /// An open of `id` ended without a close: it records no lease.
    func leaseAbandoned(_ id: DocumentID) {
        _ = countClose(id)
    }

    /// Counts one open of `id` fewer; returns whether it was the last.
    private func countClose(_ id: DocumentID) -> Bool {
        withLock { () -> Bool in
            openLeases[id, default: 1] -= 1
            guard openLeases[id] == 0 else { return false }
            openLeases[id] = nil
            return true
        }
    }

    /// Records `doc`'s client ID for the next open of `id`, once everything it wrote is
    /// flushed (a clean close).
    func leaseClosed(_ id: DocumentID, doc: Doc) throws(AccordError) {
        let last = countClose(id)
        // Another open of the document may still write under its own ID; only the last
        // close records one (its edits are flushed, the other opens' too by then).
        guard last else { return }
        guard try contains(id), try metadata(id).isResident else { return }
        try storage.withAdapter {
            try $0.commit([.put(DocumentCategories.clientLease, key: id.rawValue, value: ClientLease(of: doc).encoded)])
        }
    }
}
