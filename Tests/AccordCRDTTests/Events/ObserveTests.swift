import Testing
import AccordCRDT

/// The event API on small, named cases (the fuzzers cover it at scale).
@Suite struct ObserveTests {
    @Test func textEventCarriesAttributesAndOrigin() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "hello world")
        var seen: [YEvent] = []
        let subscription = text.observe { seen.append($0) }
        try doc.transact(origin: "toolbar") { try text.format(0, 5, ["bold": true]) }
        #expect(seen.count == 1)
        #expect(seen.first?.origin == "toolbar")
        #expect(seen.first?.isLocal == true)
        #expect(seen.first.map { $0.delta.map(\.json) } == [.object(["retain": 5, "attributes": ["bold": true]])])

        subscription.cancel()
        try text.insert(0, "x")
        #expect(seen.count == 1, "a cancelled observer is not called")
    }

    @Test func mapEventReportsAddUpdateDeleteWithOldValues() throws {
        let doc = Doc(clientID: 1)
        let map = try doc.getMap("m")
        try map.set("a", 1)
        try map.set("b", 2)
        var keys: [String: KeyChange] = [:]
        _ = map.observe { keys = $0.keys }
        try doc.transact {
            try map.set("a", 10)
            try map.delete("b")
            try map.set("c", 3)
        }
        #expect(keys["a"]?.action == .update && keys["a"]?.oldValue?.value == 1)
        #expect(keys["b"]?.action == .delete && keys["b"]?.oldValue?.value == 2)
        #expect(keys["c"]?.action == .add && keys["c"]?.oldValue == nil)
    }

    @Test func deepObserverGetsPathsOfNestedRemoteChanges() throws {
        let a = Doc(clientID: 1)
        let list = try a.getMap("root").setArray("list")
        let inner = try list.insertMap(0)
        let b = Doc(clientID: 2)
        try b.applyUpdate(a.encodeStateAsUpdate())
        var events: [YEvent] = []
        _ = try b.getMap("root").observeDeep { events.append(contentsOf: $0) }
        try inner.set("x", "y")
        try b.applyUpdate(a.encodeStateAsUpdate(from: b.encodeStateVector()))
        #expect(events.count == 1)
        #expect(events.first?.path == [.key("list"), .index(0)])
        #expect(events.first?.isLocal == false)
        #expect(events.first?.keys["x"]?.action == .add)
    }

    @Test func onUpdateDeliversEachTransactionOnceWithItsOrigin() throws {
        let doc = Doc(clientID: 1)
        var updates: [(bytes: [UInt8], origin: Origin?)] = []
        _ = doc.onUpdate { updates.append(($0, $1)) }
        try doc.transact(origin: "batch") {
            try doc.getText("t").insert(0, "ab")
            try doc.transact { try doc.getText("t").insert(2, "c") }  // folded into the outer one
        }
        #expect(updates.count == 1)
        #expect(updates.first?.origin == "batch")
        let replica = Doc()
        try replica.applyUpdate(updates[0].bytes)
        #expect(try replica.getText("t").string == "abc")
    }
}
