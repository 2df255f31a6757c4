/// One step an ``UndoManager`` can undo or redo: what a group of transactions inserted
/// and deleted, by ID range, and the app's own metadata.
///
/// Apps keep what they need to restore alongside the content in ``meta`` (typically the
/// cursor or selection, as a relative position), set in ``UndoManager/onStackItemAdded(_:)``
/// and read back in ``UndoManager/onStackItemPopped(_:)``.
public final class UndoStackItem {
    /// Units the step inserted (undo deletes them, unless already deleted).
    public internal(set) var insertions: DeleteSet
    /// Units the step deleted (undo inserts copies of them).
    public internal(set) var deletions: DeleteSet
    /// The app's data for this step; the manager never reads it.
    public var meta: [String: AnyValue] = [:]

    init(insertions: DeleteSet, deletions: DeleteSet) {
        self.insertions = insertions
        self.deletions = deletions
    }
}

/// What ``UndoManager/Options/captureTransaction`` is told about a transaction.
public struct UndoTransactionInfo {
    /// The transaction's origin (nil for plain edits).
    public let origin: Origin?
    /// Whether it was made on this replica (only local transactions are tracked).
    public let isLocal: Bool
}

/// An item an undo or redo is about to delete, for ``UndoManager/Options/deleteFilter``.
public struct UndoDeleteCandidate {
    /// The item's first unit.
    public let id: ID
    /// Units it holds (characters in UTF-16 units, elements, 1 for a type).
    public let length: Int
    /// The shared type it holds, when it holds one.
    public let type: YValue?
    /// Its text, when it is a run of text.
    public let text: String?
    /// The type it lies in.
    public let parent: YValue
}

/// Which of an ``UndoManager``'s two stacks an item is on.
public enum UndoStackKind: String, Sendable {
    /// The stack ``UndoManager/undo()`` pops: local edits, and what redo did.
    case undo
    /// The stack ``UndoManager/redo()`` pops: what undo did.
    case redo
}

/// Passed to an ``UndoManager``'s event handlers.
public struct UndoStackEvent {
    /// The item added, extended or popped (set its ``UndoStackItem/meta`` when added).
    public let item: UndoStackItem
    /// The stack the item was added to or popped from.
    public let stack: UndoStackKind
    /// The origin of the transaction that made the change.
    public let origin: Origin?
}

/// The types an ``UndoManager`` tracks: some (and what is nested in them), or all.
struct UndoScope {
    var types: Set<Int32> = []
    var wholeDocument = false

    func contains(_ t: Int32) -> Bool { wholeDocument || types.contains(t) }
}
