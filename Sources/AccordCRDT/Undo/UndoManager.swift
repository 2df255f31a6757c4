/// Undo and redo of a document's local edits, with Yjs's semantics, so that editor
/// bindings written for Yjs's `UndoManager` behave the same.
///
/// A manager watches a *scope* of shared types and records each tracked transaction that
/// changed them as a step on its undo stack; edits made within ``Options/captureTimeout``
/// of each other join one step. ``undo()`` reverts the newest step: it deletes what the
/// step inserted and inserts copies of what it deleted (text with its formatting, map
/// entries, array elements, nested types), as a new local transaction that syncs like
/// any other edit. That transaction becomes a step on the redo stack. Changes made by
/// other replicas are never reverted, and undoing one's own step leaves their concurrent
/// edits in place.
///
/// ```swift
/// let text = try doc.getText("body")
/// let undo = UndoManager(scope: [.text(text)], options: .init(captureTimeout: 0))
/// try text.insert(0, "Hello")
/// try undo.undo()   // true: text is "" again
/// try undo.redo()   // true: "Hello"
/// ```
///
/// Deleted content in scope is kept (not garbage-collected) while a step may need it;
/// ``clear(undoStack:redoStack:)`` and the depth limit release it. Not `Sendable`, like
/// its ``Doc``.
public final class UndoManager {
    /// How a manager groups and tracks edits.
    public struct Options {
        /// Edits within this many milliseconds of the previous tracked one join its step;
        /// 0 makes each transaction a step of its own.
        public var captureTimeout: UInt64
        /// The origins of the local transactions to track; nil stands for transactions
        /// without an origin (plain edits). Applied updates are never tracked.
        public var trackedOrigins: Set<Origin?>
        /// How many steps each stack holds; past it the oldest step is dropped. Values
        /// below 1 mean the default, 50.
        public var maxDepth: Int
        /// The origin of the transactions ``undo()`` and ``redo()`` make.
        public var origin: Origin
        /// Milliseconds on any monotonic scale; a test passes a manual clock.
        public var now: () -> UInt64
        /// Whether a tracked transaction becomes (part of) a step at all (Yjs
        /// `captureTransaction`); nil: every one. Asked after the origin matched.
        public var captureTransaction: ((UndoTransactionInfo) -> Bool)?
        /// Whether an undo or redo may delete this item the step inserted (Yjs
        /// `deleteFilter`); nil: all. A step whose deletions are all refused and that
        /// brings nothing back changes nothing (and the next step is tried).
        public var deleteFilter: ((UndoDeleteCandidate) -> Bool)?
        /// Bring a map value back even when another replica wrote the key since (Yjs
        /// `ignoreRemoteMapChanges`); by default such a value is left as the other wrote it.
        public var ignoreRemoteMapChanges = false

        public static let defaultMaxDepth = 50

        public init(captureTimeout: UInt64 = 500, trackedOrigins: Set<Origin?> = [nil], maxDepth: Int = 50,
                    origin: Origin = "accord.undo", now: @escaping () -> UInt64 = UndoManager.monotonicMilliseconds) {
            self.captureTimeout = captureTimeout
            self.trackedOrigins = trackedOrigins
            self.maxDepth = maxDepth
            self.origin = origin
            self.now = now
        }
    }

    /// The document whose edits are tracked.
    public let doc: Doc
    public let options: Options
    /// The types tracked (indices in the document's store).
    private(set) var scope = UndoScope()
    /// Oldest first; ``undo()`` pops the last.
    public private(set) var undoStack: [UndoStackItem] = []
    public private(set) var redoStack: [UndoStackItem] = []
    /// Set while ``undo()`` / ``redo()`` run their transaction.
    private(set) var undoing = false
    private(set) var redoing = false
    /// When the last tracked edit was recorded; nil after ``stopCapturing()``.
    private var lastChange: UInt64?
    private var hook: Subscription?
    private var addedHandlers: [(id: Int, handler: (UndoStackEvent) -> Void)] = []
    private var updatedHandlers: [(id: Int, handler: (UndoStackEvent) -> Void)] = []
    private var poppedHandlers: [(id: Int, handler: (UndoStackEvent) -> Void)] = []
    private var nextHandlerID = 0

    /// Tracks edits to `scope` (types of one document) from now on.
    /// - Throws: ``ErrorCode/invalidArgument`` when `scope` is empty, holds something that
    ///   is not a shared type, or types of different documents.
    public convenience init(scope: [YValue], options: Options = Options()) throws(AccordError) {
        guard let first = scope.first, let doc = Self.document(of: first) else {
            throw AccordError(.invalidArgument, "an undo manager needs at least one shared type in its scope")
        }
        self.init(doc: doc, options: options)
        for value in scope { try addToScope(value) }
    }

    /// Tracks one text (the common case: an editor's document).
    public convenience init(_ text: YText, options: Options = Options()) {
        self.init(doc: text.doc, options: options)
        scope.types.insert(text.type)
    }

    /// Tracks every shared type of `doc`, including those created later (Yjs: a scope
    /// holding the document itself). What a document-wide undo button wants.
    public convenience init(document doc: Doc, options: Options = Options()) {
        self.init(doc: doc, options: options)
        scope.wholeDocument = true
    }

    private init(doc: Doc, options: Options) {
        self.doc = doc
        var options = options
        if options.maxDepth < 1 { options.maxDepth = Options.defaultMaxDepth }
        self.options = options
        hook = doc.addAfterTransactionHandler { [weak self] tr in self?.record(&tr) }
    }

    deinit { hook?.cancel() }

    /// Adds a type of the same document to the scope (Yjs `addToScope`).
    /// - Throws: ``ErrorCode/invalidArgument`` for a plain value or another document's type.
    public func addToScope(_ value: YValue) throws(AccordError) {
        guard let owner = Self.document(of: value), owner === doc, let t = doc.typeIndex(of: value) else {
            throw AccordError(.invalidArgument, "the undo scope takes shared types of the manager's document")
        }
        scope.types.insert(t)
    }

    private static func document(of value: YValue) -> Doc? {
        switch value {
        case .text(let t): t.doc
        case .map(let m): m.doc
        case .array(let a): a.doc
        case .xml(let x): x.doc
        case .value, .subdocument: nil
        }
    }

    // MARK: State

    /// Whether ``undo()`` has a step to revert. False while the document is in a transaction.
    public var canUndo: Bool { doc.transactionDepth == 0 && !undoStack.isEmpty }
    /// Whether ``redo()`` has a step to reapply. False while the document is in a transaction.
    public var canRedo: Bool { doc.transactionDepth == 0 && !redoStack.isEmpty }

    /// Makes the next tracked edit start a new step, however soon it comes.
    public func stopCapturing() { lastChange = nil }

    /// Forgets the steps of one or both stacks and releases the deleted content only
    /// they were keeping.
    public func clear(undoStack clearUndo: Bool = true, redoStack clearRedo: Bool = true) {
        if clearUndo {
            for item in undoStack { release(item) }
            undoStack.removeAll()
        }
        if clearRedo {
            for item in redoStack { release(item) }
            redoStack.removeAll()
        }
    }

    /// Lets the content `item` deleted be garbage-collected again (Yjs
    /// `clearUndoManagerStackItem`): it is collected when a later transaction deletes
    /// near it or the document is reloaded, as in Yjs.
    private func release(_ item: UndoStackItem) {
        doc.setKeep(false, in: item.deletions, scope: scope)
    }

    // MARK: Events

    /// Calls `handler` when a step is pushed on either stack (set its ``UndoStackItem/meta`` here).
    @discardableResult
    public func onStackItemAdded(_ handler: @escaping (UndoStackEvent) -> Void) -> Subscription {
        subscribe(handler, to: \.addedHandlers)
    }

    /// Calls `handler` when an edit joins the newest step instead of making one.
    @discardableResult
    public func onStackItemUpdated(_ handler: @escaping (UndoStackEvent) -> Void) -> Subscription {
        subscribe(handler, to: \.updatedHandlers)
    }

    /// Calls `handler` after ``undo()`` or ``redo()`` reverted a step, with that step.
    @discardableResult
    public func onStackItemPopped(_ handler: @escaping (UndoStackEvent) -> Void) -> Subscription {
        subscribe(handler, to: \.poppedHandlers)
    }

    private func subscribe(_ handler: @escaping (UndoStackEvent) -> Void,
                           to list: ReferenceWritableKeyPath<UndoManager, [(id: Int, handler: (UndoStackEvent) -> Void)]>) -> Subscription {
        let id = nextHandlerID
        nextHandlerID += 1
        self[keyPath: list].append((id, handler))
        return Subscription { [weak self] in self?[keyPath: list].removeAll { $0.id == id } }
    }

    func emit(_ event: UndoStackEvent, to handlers: [(id: Int, handler: (UndoStackEvent) -> Void)]) {
        for (_, handler) in handlers { handler(event) }
    }

    // MARK: Recording

    /// The after-transaction hook (Yjs `afterTransactionHandler`).
    private func record(_ tr: inout TransactionState) {
        let ownStep = undoing || redoing
        guard tr.local, ownStep || options.trackedOrigins.contains(tr.origin), doc.changedInside(scope, tr) else { return }
        if !ownStep, let capture = options.captureTransaction,
           !capture(UndoTransactionInfo(origin: tr.origin, isLocal: tr.local)) { return }
        if undoing {
            // The next undo must not join the step this one pushes.
            lastChange = nil
        } else if !redoing {
            // A new edit: what was undone can no longer be redone.
            clear(undoStack: false, redoStack: true)
        }
        let insertions = doc.insertions(of: tr)
        let deletions = doc.deletions(of: tr)
        let now = options.now()
        let stackKind: UndoStackKind = undoing ? .redo : .undo
        var extended = false
        if !ownStep, let last = lastChange, now &- last < options.captureTimeout, let top = undoStack.last {
            top.insertions.formUnion(insertions)
            top.deletions.formUnion(deletions)
            extended = true
        } else {
            push(UndoStackItem(insertions: insertions, deletions: deletions), on: stackKind)
        }
        if !ownStep { lastChange = now }
        // Keep what was deleted, so that undoing this step can copy it back.
        doc.setKeep(true, in: deletions, scope: scope)
        guard let item = stackKind == .undo ? undoStack.last : redoStack.last else { return }
        let event = UndoStackEvent(item: item, stack: stackKind, origin: tr.origin)
        emit(event, to: extended ? updatedHandlers : addedHandlers)
    }

    /// Pushes `item`, dropping the oldest step past the depth limit.
    private func push(_ item: UndoStackItem, on kind: UndoStackKind) {
        switch kind {
        case .undo: undoStack.append(item)
        case .redo: redoStack.append(item)
        }
        let count = kind == .undo ? undoStack.count : redoStack.count
        guard count > options.maxDepth else { return }
        let dropped = kind == .undo ? undoStack.removeFirst() : redoStack.removeFirst()
        release(dropped)
    }

    // MARK: Undo and redo

    /// Reverts the newest step of the undo stack, skipping steps that have nothing left to
    /// revert (everything they did was already undone by others).
    /// - Returns: whether something was reverted.
    /// - Throws: ``ErrorCode/refused`` inside a transaction of the document
    ///   ("Undo is not allowed during an update").
    @discardableResult
    public func undo() throws(AccordError) -> Bool {
        guard doc.transactionDepth == 0 else {
            throw AccordError(.refused, "Undo is not allowed during an update")
        }
        undoing = true
        defer { undoing = false }
        return popStep(from: .undo)
    }

    /// Reapplies the newest step of the redo stack.
    /// - Returns: whether something was reapplied.
    /// - Throws: ``ErrorCode/refused`` inside a transaction of the document
    ///   ("Redo is not allowed during an update").
    @discardableResult
    public func redo() throws(AccordError) -> Bool {
        guard doc.transactionDepth == 0 else {
            throw AccordError(.refused, "Redo is not allowed during an update")
        }
        redoing = true
        defer { redoing = false }
        return popStep(from: .redo)
    }

    /// Yjs `popStackItem`: in one transaction, pops steps until one changes something.
    private func popStep(from kind: UndoStackKind) -> Bool {
        var applied: UndoStackItem?
        doc.beginTransaction(origin: options.origin, local: true)
        while applied == nil, let item = (kind == .undo ? undoStack.popLast() : redoStack.popLast()) {
            if doc.applyStep(item, scope: scope, stacks: [undoStack, redoStack], options: options) { applied = item }
        }
        doc.endTransaction()
        guard let applied else { return false }
        emit(UndoStackEvent(item: applied, stack: kind, origin: options.origin), to: poppedHandlers)
        return true
    }

    /// Milliseconds since an arbitrary start, on a clock that never goes back.
    public static func monotonicMilliseconds() -> UInt64 {
        let elapsed = ContinuousClock.now - start
        return UInt64(elapsed.components.seconds) * 1_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    private static let start = ContinuousClock.now
}
