@testable import AccordCRDT
import AccordTesting
import Testing

/// Local typing appends to this replica's newest text item instead of creating an item
/// that the end of the transaction would merge back (Store+ExtendLocal.swift), and
/// backspacing joins deleted text to its deleted neighbour instead of splitting it off
/// (Store+AbsorbDeleted.swift). Both must be invisible: the same edits on a document
/// that takes neither shortcut give the same update per transaction, the same full
/// state and the same events.
@Suite struct LocalShortcutsTests {
    @Test(arguments: 0..<32 as Range<UInt64>)
    func shortcutsAreInvisible(seed: UInt64) throws {
        // Formatting sends text down the general path for good: half the seeds never format.
        let formats = seed % 2 == 0
        let fast = try Recorder(shortcuts: true, formats: formats)
        let plain = try Recorder(shortcuts: false, formats: formats)
        var rng = SplitMix64(seed: seed)
        for step in 0..<150 {
            // The same random transaction on both (each draws from its own copy).
            let start = rng
            for recorder in [fast, plain] {
                rng = start
                try recorder.edit(&rng, observing: step % 3 == 0)
            }
            let at = "seed \(seed), step \(step)"
            #expect(fast.updates == plain.updates, "\(at): transaction update")
            #expect(fast.deltas == plain.deltas, "\(at): events")
            #expect(fast.doc.encodeStateAsUpdate() == plain.doc.encodeStateAsUpdate(), "\(at): full state")
            guard fast.updates == plain.updates, fast.deltas == plain.deltas else { return }
        }
    }

    /// One document and what it reported.
    final class Recorder {
        let doc = Doc(clientID: 7)
        let text: YText
        var updates: [[UInt8]] = []
        var deltas: [[AnyValue]] = []
        var subscriptions: [Subscription] = []
        let formats: Bool

        init(shortcuts: Bool, formats: Bool) throws {
            text = try doc.getText("t")
            self.formats = formats
            doc.store.usesLocalShortcuts = shortcuts
            subscriptions.append(doc.onUpdate { [unowned self] bytes, _ in updates.append(bytes) })
        }

        /// `offset`, or the offset before it when it falls inside a surrogate pair.
        func snapped(_ offset: Int) -> Int {
            let units = Array(text.string.utf16)
            return offset > 0 && offset < units.count && UTF16.isTrailSurrogate(units[offset]) ? offset - 1 : offset
        }

        /// Mostly typing at a cursor, sometimes a jump, a backspace or formatting (which
        /// takes the formatted path), in one transaction. With `observing`, an observer
        /// joins halfway through it.
        func edit(_ rng: inout SplitMix64, observing: Bool) throws {
            try doc.transact {
                // Offsets inside a surrogate pair are refused: every position snaps left.
                var cursor = snapped(Int.random(in: 0...text.length, using: &rng))
                let count = Int.random(in: 1...5, using: &rng)
                for i in 0..<count {
                    if observing, i == count / 2 {
                        subscriptions.append(text.observe { [unowned self] in deltas.append($0.delta.map(\.json)) })
                    }
                    switch Int.random(in: 0..<10, using: &rng) {
                    case 0..<6:
                        let s = ["a", "bc", "é", "😀", "xyz"].randomElement(using: &rng)!
                        try text.insert(cursor, s)
                        cursor += s.utf16.count
                    case 6:
                        cursor = snapped(Int.random(in: 0...text.length, using: &rng))
                    case 7, 8:
                        guard cursor > 0 else { continue }
                        let from = snapped(cursor - min(cursor, Int.random(in: 1...3, using: &rng)))
                        try text.delete(from, cursor - from)
                        cursor = from
                    default:
                        guard formats, text.length > 0, Int.random(in: 0..<3, using: &rng) == 0 else { continue }
                        let at = snapped(Int.random(in: 0..<text.length, using: &rng))
                        let length = snapped(at + 1) == at ? 2 : 1
                        try text.format(at, length, ["bold": .bool(Bool.random(using: &rng))])
                    }
                }
            }
            for s in subscriptions.dropFirst() { s.cancel() }
            subscriptions.removeSubrange(1...)
        }
    }

    @Test func typingEventsNameOnlyTheNewText() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "hello")
        var deltas: [[AnyValue]] = []
        let subscription = text.observe { deltas.append($0.delta.map(\.json)) }
        try text.insert(5, " world")
        #expect(deltas.last == [.object(["retain": 5]), .object(["insert": " world"])])

        // An observer subscribed after the typing of its transaction began still sees
        // the typed text as new.
        subscription.cancel()
        deltas = []
        try doc.transact {
            try text.insert(11, "!")
            _ = text.observe { deltas.append($0.delta.map(\.json)) }
            try text.insert(12, "?")
        }
        #expect(deltas == [[.object(["retain": 11]), .object(["insert": "!?"])]])
        #expect(text.string == "hello world!?")
    }
}

extension LocalShortcutsTests {
    /// Backspacing over typed text takes the shortcut: after the first backspace split
    /// the deleted unit off, each further one moves a unit into it, with no item made
    /// (the plain path splits one off and merges it back, reusing the freed slot).
    @Test func backspacingJoinsDeletedTextWithoutSplitting() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "hello")
        try text.delete(4, 1)
        let arena = doc.store.items.count
        try text.delete(3, 1)
        try text.delete(2, 1)
        #expect(doc.store.items.count == arena)
        #expect(doc.store.freeItems.isEmpty)
        #expect(text.string == "he")
        #expect(doc.store.clientStructs[0].count == 2)

        let plain = Doc(clientID: 1)
        plain.store.usesLocalShortcuts = false
        let plainText = try plain.getText("t")
        try plainText.insert(0, "hello")
        for index in [4, 3, 2] { try plainText.delete(index, 1) }
        #expect(plain.encodeStateAsUpdate() == doc.encodeStateAsUpdate())
        #expect(plain.store.freeItems.count == 1)
    }
}
