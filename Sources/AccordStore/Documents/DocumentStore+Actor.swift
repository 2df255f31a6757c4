public import AccordCRDT

extension DocumentStore {
    /// Where the store keeps what belongs to the device rather than to a document.
    static let deviceCategory = StorageCategory("device")

    /// This store's persistent device key: 32 lowercase hex digits (128 random bits),
    /// made the first time it is asked for and kept in the store, so it is the same
    /// across restarts and different on every other device or fresh store. Apps use it
    /// to tell devices apart (presence, audit); Yjs client IDs stay per document
    /// (``ClientLease``). A store wiped on logout (``wipeAll()``) makes a new one.
    public func actorID() throws(AccordError) -> String {
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkOpen()
        if let stored = try storage.withAdapter({ try $0.read(Self.deviceCategory, key: "actor") }),
           stored.count == 32, stored.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }) {
            return String(decoding: stored, as: UTF8.self)
        }
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        let made = (0..<32).map { _ in digits[Int(generator.next() % 16)] }
        try storage.withAdapter { try $0.commit([.put(Self.deviceCategory, key: "actor", value: made)]) }
        return String(decoding: made, as: UTF8.self)
    }
}
