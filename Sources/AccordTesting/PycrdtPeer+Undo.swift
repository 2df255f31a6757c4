import AccordCRDT

/// pycrdt's `UndoManager` on a peer replica, driven by a clock the test moves: the
/// reference for Accord's ``UndoManager`` (scripts/pycrdt_peer.py documents the commands).
extension PycrdtPeer {
    /// Applies update v1 bytes to `doc` in a transaction with `origin`, which its undo
    /// manager does not track (pycrdt tracks transactions without an origin).
    public func applyUpdate(_ update: [UInt8], to doc: String, origin: String) throws {
        try request(["cmd": "apply", "doc": .string(doc), "update": .string(Hex.encode(update)), "origin": .string(origin)])
    }

    /// Gives `doc` an undo manager over `scopes`, its clock at 1000 ms.
    public func newUndoManager(on doc: String, scopes: [EditTarget], captureTimeout: UInt64) throws {
        let scopes: [AnyValue] = scopes.map { target in
            .object([
                "root": .string(target.root), "root_kind": .string(target.rootKind.rawValue),
                "path": .array(target.path.map { segment in
                    switch segment {
                    case .key(let k): .string(k)
                    case .index(let i): .int(Int64(i))
                    }
                }),
            ])
        }
        try request(["cmd": "undo_new", "doc": .string(doc), "scopes": .array(scopes),
                     "capture_timeout": .int(Int64(captureTimeout))])
    }

    /// Sets the clock of `doc`'s undo manager (milliseconds).
    public func setUndoClock(on doc: String, to now: UInt64) throws {
        try request(["cmd": "undo_clock", "doc": .string(doc), "now": .int(Int64(now))])
    }

    /// Undoes on `doc`; whether something changed.
    public func undo(on doc: String) throws -> Bool {
        try request(["cmd": "undo", "doc": .string(doc)])["changed"] == .bool(true)
    }

    /// Redoes on `doc`; whether something changed.
    public func redo(on doc: String) throws -> Bool {
        try request(["cmd": "redo", "doc": .string(doc)])["changed"] == .bool(true)
    }

    /// The depths of `doc`'s undo and redo stacks.
    public func undoDepths(on doc: String) throws -> (undo: Int, redo: Int) {
        let reply = try request(["cmd": "undo_state", "doc": .string(doc)])
        return (Int(reply["undo_depth"]?.intValue ?? -1), Int(reply["redo_depth"]?.intValue ?? -1))
    }
}
