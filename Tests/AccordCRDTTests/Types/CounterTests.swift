import AccordCRDT
import AccordTesting
import Testing

/// YCounter: concurrent increases add up exactly, in any delivery order, and the
/// layout is a plain map a Yjs peer (pycrdt) reads and writes.
@Suite struct CounterTests {
    @Test func twoDevicesEachAddingOneOfflineGiveTwo() throws {
        let phone = Doc(clientID: 1), laptop = Doc(clientID: 2)
        try phone.getCounter("likes").increase(by: 1)
        try laptop.getCounter("likes").increase(by: 1)
        try phone.applyUpdate(laptop.encodeStateAsUpdate())
        try laptop.applyUpdate(phone.encodeStateAsUpdate())
        #expect(try phone.getCounter("likes").value == 2)
        #expect(try laptop.getCounter("likes").value == 2)
    }

    @Test(arguments: 0..<16 as Range<UInt64>)
    func randomIncrementsInRandomDeliveryOrderSumExactly(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let replicas = (0..<5).map { Doc(clientID: ClientID(100 + $0)) }
        var updates: [[UInt8]] = []
        var expected: Int64 = 0
        for doc in replicas { doc.onUpdate { update, origin in if origin == nil { updates.append(update) } } }
        for _ in 0..<20 {
            let doc = replicas.randomElement(using: &rng)!
            let amount = Int64.random(in: -1_000...1_000_000, using: &rng)
            try doc.getCounter("c").increase(by: amount)
            expected += amount
            // Some updates reach some replicas early, out of order.
            if rng.chance(0.3), let early = updates.randomElement(using: &rng) {
                try replicas.randomElement(using: &rng)!.applyUpdate(early, origin: "sync")
            }
        }
        for doc in replicas + [Doc(clientID: 999)] {
            var delivery = updates + updates.prefix(3)
            delivery.shuffle(using: &rng)
            for update in delivery { try doc.applyUpdate(update, origin: "sync") }
            #expect(try doc.getCounter("c").value == expected, "seed \(seed)")
        }
    }

    @Test func pycrdtReadsAndWritesTheLayout() throws {
        let peer = try PycrdtPeer()
        defer { peer.close() }
        try peer.newDoc("P", clientID: 30)
        let doc = Doc(clientID: 7)
        let counter = try doc.getCounter("c")
        try counter.increase(by: 5)
        try counter.increase(by: -2)
        try peer.applyUpdate(doc.encodeStateAsUpdate(), to: "P")
        let schema = DocumentSchema(roots: [.init("c", .map)])
        #expect(try peer.json("P", schema: schema).objectValue?["c"] == ["7": 3])
        // pycrdt adds 10 under its own client ID, as the layout says.
        let update = try peer.perform(.mapSet(EditTarget(root: "c", rootKind: .map), key: "30", value: .plain(10)), on: "P")
        try doc.applyUpdate(update)
        #expect(counter.value == 13)
        #expect(counter.ownTotal == 3)
    }

    @Test func nestedCountersAndOverflow() throws {
        let doc = Doc(clientID: 1)
        let inMap = try doc.getMap("m").setCounter("votes")
        try inMap.increase(by: 2)
        #expect(try doc.getMap("m").counter("votes")?.value == 2)
        let inArray = try doc.getArray("a").insertCounter(0)
        try inArray.increase(by: .max)
        let error = #expect(throws: AccordError.self) { try inArray.increase(by: 1) }
        #expect(error?.code == .invalidArgument)
        #expect(inArray.value == .max)
        // A value that breaks the layout counts as 0.
        try doc.getMap("m").counter("votes")?.map.set("junk", "text")
        #expect(inMap.value == 2)
    }
}
