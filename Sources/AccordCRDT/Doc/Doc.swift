/// A replica of one collaborative document.
///
/// A `Doc` holds named root types (``YText``, ``YMap``, ``YArray``), records every
/// change as Yjs update v1 bytes, and merges updates from other replicas in any
/// order. It is synchronous and not `Sendable`: whoever owns it (an actor, a store)
/// serialises access.
///
/// ```swift
/// let doc = Doc()
/// let text = try doc.getText("body")
/// text.insert(0, "Hello")
/// let update = doc.encodeStateAsUpdate()
/// let replica = Doc()
/// try replica.applyUpdate(update)
/// ```
public final class Doc {
    // Dynamic exclusivity checks on the properties marked unchecked cost a fifth of an
    // edit's time (each access to a class's stored property is tracked in a thread-local
    // set, even a plain read once per transaction). They are safe to skip: a Doc is
    // confined to one owner, and its own code never opens a second access to one of them
    // while the first is still open (observers run after the store work of a transaction
    // is done).

    /// This replica's client ID: a random 32-bit number unless given.
    @exclusivity(unchecked) public internal(set) var clientID: ClientID
    /// Whether deleted content is garbage-collected at the end of each transaction.
    @exclusivity(unchecked) public var gc: Bool
    /// Whether ``applyUpdate(_:origin:)`` refuses updates naming a client id above
    /// ``ID/maxSafeClient`` (2^53 − 1) anywhere: struct ids, origins, right origins,
    /// parents, delete sets. Off by default, as in Yjs and Yrs, so documents stored or
    /// received with such ids stay readable; a server sets it for what clients send,
    /// because JavaScript peers cannot read those ids exactly and would lose the edits.
    @exclusivity(unchecked) public var strictClientIDs = false

    @exclusivity(unchecked) var store = Store()
    /// The transaction in progress (meaningful while `transactionDepth > 0`). Reset in
    /// place for each transaction, so its buffers are reused and never reallocated.
    @exclusivity(unchecked) var transaction = TransactionState()
    /// The transaction being cleaned up; swapped with `transaction`, never copied.
    @exclusivity(unchecked) var finishing = TransactionState()
    @exclusivity(unchecked) var transactionDepth = 0
    /// Transactions opened by a clean-up step, run after it (rare: text clean-up).
    @exclusivity(unchecked) var cleanupQueue: [TransactionState] = []
    @exclusivity(unchecked) var isCleaningUp = false
    /// Bumped when a transaction starts and when it has ended (clean-up included), so
    /// anything cached about the store's items knows its state is gone (``PositionIndex``).
    var positionEpoch: UInt64 = 0
    /// Cached item positions for resolving relative positions (`Positions/PositionIndex.swift`).
    var positionIndexes = PositionIndexes()

    @exclusivity(unchecked) var pending: PendingUpdates?
    /// The buffers the last small update was decoded into, reused by the next.
    @exclusivity(unchecked) var compactBuffers = CompactUpdate()
    @exclusivity(unchecked) var pendingDeleteSet = DeleteSet()

    @exclusivity(unchecked) var updateHandlers: [(id: Int, handler: ([UInt8], Origin?) -> Void)] = []
    @exclusivity(unchecked) var typeObservers: [Int32: [(id: Int, handler: (YEvent) -> Void)]] = [:]
    @exclusivity(unchecked) var deepObservers: [Int32: [(id: Int, handler: ([YEvent]) -> Void)]] = [:]
    /// Undo managers' hooks, run after the observers and before garbage collection (Yjs's
    /// `afterTransaction`): they see what a transaction did and protect what it deleted.
    @exclusivity(unchecked) var afterTransactionHandlers: [(id: Int, handler: (inout TransactionState) -> Void)] = []
    var nextSubscriptionID = 0
    /// The incremental index of ``attachments()``, made on first use, and its hook.
    var attachmentTracker: AttachmentTracker?
    var attachmentSubscription: Subscription?
    /// The undo manager the document's owner installed for it (an `AccordClient` gives
    /// each open document one), so that code holding only the `Doc` reaches it. Weak:
    /// the owner keeps it alive. The engine itself never reads it.
    public weak var undoManager: UndoManager?

    /// Creates an empty document.
    /// - Parameters:
    ///   - clientID: the ID this replica writes with; random (32 bits) when nil.
    ///   - gc: collect deleted content (the Yjs default).
    public init(clientID: ClientID? = nil, gc: Bool = true) {
        self.clientID = clientID ?? ClientID(UInt32.random(in: .min ... .max))
        self.gc = gc
    }

    @exclusivity(unchecked) private var cachedOwnClient: (id: ClientID, index: ClientIndex)?

    /// The store-local index of this replica's client (cached: looked up per edit).
    var localClient: ClientIndex {
        if let cached = cachedOwnClient, cached.id == clientID { return cached.index }
        let index = store.intern(client: clientID)
        cachedOwnClient = (clientID, index)
        return index
    }

    // MARK: Root types

    /// The root text named `name`, created on first use.
    /// - Throws: ``ErrorCode/typeMismatch`` when the root already is a map or array.
    public func getText(_ name: String) throws(AccordError) -> YText {
        YText(doc: self, type: try root(name, kind: .text))
    }

    /// The root map named `name`, created on first use.
    public func getMap(_ name: String) throws(AccordError) -> YMap {
        YMap(doc: self, type: try root(name, kind: .map))
    }

    /// The root array named `name`, created on first use.
    public func getArray(_ name: String) throws(AccordError) -> YArray {
        YArray(doc: self, type: try root(name, kind: .array))
    }

    /// The root XML fragment named `name` (editing API in `Types/YXml+Editing.swift`).
    public func getXmlFragment(_ name: String) throws(AccordError) -> YXml {
        YXml(doc: self, type: try root(name, kind: .xmlFragment))
    }

    /// Names of the root types this document knows (from the API or from updates).
    public var rootNames: [String] { store.roots.keys.sorted() }

    func root(_ name: String, kind: TypeKind) throws(AccordError) -> Int32 {
        let t = store.rootType(named: name)
        if let existing = store.types[Int(t)].kind {
            guard existing == kind || (existing == .xmlText && kind == .text) else {
                throw AccordError(.typeMismatch, "root '\(name)' is a \(existing), not a \(kind)")
            }
        } else {
            store.types[Int(t)].kind = kind
        }
        return t
    }

    // MARK: Transactions

    /// Runs `body` in one transaction: observers and `onUpdate` run once, after it.
    /// Nested calls fold into the outermost transaction.
    // Inlinable so that callers in other modules get it specialized: the generic
    // version cost as much as a keystroke's integration.
    ///
    /// When `body` throws, the outermost transaction is rolled back: the document is
    /// exactly as before the call (content, state vector, encoded state), no observer
    /// or `onUpdate` handler runs, and the error is rethrown. (A nested `transact` whose
    /// error is caught inside the outer body keeps its edits until the outer one ends.)
    @inlinable
    public func transact<R>(origin: Origin? = nil, _ body: () throws -> R) rethrows -> R {
        beginTransaction(origin: origin, local: true)
        let result: R
        do {
            result = try body()
        } catch {
            abandonTransaction()
            throw error
        }
        endTransaction()
        return result
    }

    @usableFromInline
    func beginTransaction(origin: Origin?, local: Bool) {
        if transactionDepth == 0 {
            positionEpoch &+= 1
            transaction.reset(origin: origin, local: local)
            // Element by element from the store: passing the array would retain it.
            let clients = store.clientState.count
            if transaction.beforeState.count == clients {
                for c in 0..<clients { transaction.beforeState[c] = store.clientState[c] }
            } else {
                transaction.beforeState = store.clientState
            }
            transaction.ownClient = localClient
            transaction.beforeTextCount = store.text.count
            transaction.beforeValueCount = store.valuePool.count
            transaction.beforePayloadCount = store.payloads.count
            store.splitLog.removeAll()
        }
        transactionDepth += 1
    }

    @usableFromInline
    func endTransaction() {
        transactionDepth -= 1
        guard transactionDepth == 0 else { return }
        if isCleaningUp {
            // A clean-up step opened a transaction of its own: run it after the current one.
            cleanupQueue.append(transaction)
            return
        }
        isCleaningUp = true
        defer {
            isCleaningUp = false
            positionEpoch &+= 1
        }
        if cleanupRunsNoOutsideCode {
            // Nothing can open a transaction while this one is cleaned up, so it is
            // cleaned up in place (swapping the two states copies both).
            cleanup(&transaction)
            return
        }
        swap(&transaction, &finishing)
        cleanup(&finishing)
        while !cleanupQueue.isEmpty {
            finishing = cleanupQueue.removeFirst()
            cleanup(&finishing)
        }
    }

    /// Whether cleaning up the transaction in progress can only run the engine's own
    /// steps: no observer, update handler or undo manager (user code, which may edit, and
    /// undo managers call their event handlers), and no text formatting clean-up (which
    /// remote changes schedule and which edits).
    private var cleanupRunsNoOutsideCode: Bool {
        transaction.local && updateHandlers.isEmpty && typeObservers.isEmpty && deepObservers.isEmpty
            && afterTransactionHandlers.isEmpty
    }

    /// Runs `body` inside the current transaction, or a new local one.
    @inline(__always)
    func withTransaction<R>(_ body: (inout TransactionState) throws(AccordError) -> R) throws(AccordError) -> R {
        if transactionDepth > 0 {
            // Inside a transaction (an edit in `transact`): only the depth changes, and
            // it cannot return to zero here, so there is no clean-up to run.
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            return try body(&transaction)
        }
        beginTransaction(origin: nil, local: true)
        // An edit that fails part-way (a text delta with a bad op) is rolled back whole.
        do {
            let result = try body(&transaction)
            endTransaction()
            return result
        } catch {
            abandonTransaction()
            throw error
        }
    }

    // MARK: Subscriptions

    /// Calls `handler` after every transaction that changed the document, with that
    /// transaction's update (Yjs update v1) and origin. The hook for storage and sync.
    @discardableResult
    public func onUpdate(_ handler: @escaping ([UInt8], Origin?) -> Void) -> Subscription {
        let id = nextSubscriptionID
        nextSubscriptionID += 1
        updateHandlers.append((id, handler))
        return Subscription { [weak self] in self?.updateHandlers.removeAll { $0.id == id } }
    }

    func addObserver(type: Int32, _ handler: @escaping (YEvent) -> Void) -> Subscription {
        let id = nextSubscriptionID
        nextSubscriptionID += 1
        typeObservers[type, default: []].append((id, handler))
        return Subscription { [weak self] in self?.typeObservers[type]?.removeAll { $0.id == id } }
    }

    func addDeepObserver(type: Int32, _ handler: @escaping ([YEvent]) -> Void) -> Subscription {
        let id = nextSubscriptionID
        nextSubscriptionID += 1
        deepObservers[type, default: []].append((id, handler))
        return Subscription { [weak self] in self?.deepObservers[type]?.removeAll { $0.id == id } }
    }
}
