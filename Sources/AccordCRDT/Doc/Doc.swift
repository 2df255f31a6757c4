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
    /// This replica's client ID: a random 32-bit number unless given.
    public internal(set) var clientID: ClientID
    /// Whether deleted content is garbage-collected at the end of each transaction.
    public var gc: Bool

    var store = Store()
    var transaction: TransactionState?
    /// A finished transaction's state, kept so the next one reuses its buffers.
    var spareTransaction: TransactionState?
    var transactionDepth = 0
    /// Transactions that ended and still need their clean-up (run in order).
    var cleanupQueue: [TransactionState] = []
    var isCleaningUp = false

    var pending: PendingUpdates?
    var pendingDeleteSet = DeleteSet()

    var updateHandlers: [(id: Int, handler: ([UInt8], Origin?) -> Void)] = []
    var typeObservers: [Int32: [(id: Int, handler: (YEvent) -> Void)]] = [:]
    var deepObservers: [Int32: [(id: Int, handler: ([YEvent]) -> Void)]] = [:]
    var nextSubscriptionID = 0

    /// Creates an empty document.
    /// - Parameters:
    ///   - clientID: the ID this replica writes with; random (32 bits) when nil.
    ///   - gc: collect deleted content (the Yjs default).
    public init(clientID: ClientID? = nil, gc: Bool = true) {
        self.clientID = clientID ?? ClientID(UInt32.random(in: .min ... .max))
        self.gc = gc
    }

    private var cachedOwnClient: (id: ClientID, index: ClientIndex)?

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

    /// The root XML fragment named `name` (read-only for now: XML is preserved, not edited).
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
    public func transact<R>(origin: Origin? = nil, _ body: () throws -> R) rethrows -> R {
        beginTransaction(origin: origin, local: true)
        defer { endTransaction() }
        return try body()
    }

    func beginTransaction(origin: Origin?, local: Bool) {
        transactionDepth += 1
        if transaction == nil {
            if var spare = spareTransaction {
                spareTransaction = nil
                spare.reset(origin: origin, local: local, clientState: store.clientState)
                transaction = spare
            } else {
                transaction = TransactionState(origin: origin, local: local, beforeState: store.clientState)
            }
        }
    }

    func endTransaction() {
        transactionDepth -= 1
        guard transactionDepth == 0, let finished = transaction else { return }
        transaction = nil
        cleanupQueue.append(finished)
        guard !isCleaningUp else { return }
        isCleaningUp = true
        defer { isCleaningUp = false }
        while !cleanupQueue.isEmpty {
            var next = cleanupQueue.removeFirst()
            cleanup(&next)
            spareTransaction = next
        }
    }

    /// Runs `body` inside the current transaction, or a new local one.
    @inline(__always)
    func withTransaction<R>(_ body: (inout TransactionState) throws(AccordError) -> R) throws(AccordError) -> R {
        beginTransaction(origin: nil, local: true)
        defer { endTransaction() }
        return try body(&transaction!)
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
