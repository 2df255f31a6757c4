/// Encoding a document's state (the Yjs `encodeStateAsUpdate` family).
extension Doc {
    /// The document as one update v1: everything the holder of `stateVector` lacks, or
    /// the whole document when `stateVector` is nil. Deletions always travel whole.
    /// Updates still waiting for a missing predecessor are included, as Yjs does.
    /// - Throws: ``ErrorCode/malformedUpdate`` when `stateVector` cannot be decoded.
    public func encodeStateAsUpdate(from stateVector: [UInt8]? = nil) throws(AccordError) -> [UInt8] {
        let sv = try stateVector.map { (bytes) throws(AccordError) in try StateVector.decode(bytes) } ?? StateVector()
        return encodeStateAsUpdate(since: sv)
    }

    /// The whole document as one update v1.
    public func encodeStateAsUpdate() -> [UInt8] { encodeStateAsUpdate(since: StateVector()) }

    func encodeStateAsUpdate(since sv: StateVector) -> [UInt8] {
        var w = ByteWriter(capacity: 1024)
        store.writeStructs(from: store.missingClocks(since: sv), to: &w)
        store.deleteSet.write(to: &w)
        guard let pendingBytes = pendingAsUpdate() else { return w.takeBytes() }
        // Merge the pending structs and deletes in, filtered by the same state vector.
        do {
            let merged = try mergeUpdates([w.bytes, pendingBytes])
            return try diffUpdate(merged, stateVector: sv.encode())
        } catch {
            // Both inputs are our own encodings, which always decode; if that ever broke,
            // debug builds (and so the tests) stop here rather than drop pending data.
            assertionFailure("re-reading our own encoding failed: \(error)")
            return w.takeBytes()
        }
    }

    /// This replica's state vector (Yjs order: clients descending).
    public func encodeStateVector() -> [UInt8] { store.stateVector.encode() }

    /// This replica's state vector as a value.
    public var stateVector: StateVector { store.stateVector }
}
