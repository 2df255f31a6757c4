import AccordCRDT
import AccordDatabase
import Foundation
import Testing

@Suite struct BatchTests {
    struct Refusal: Error {}

    @Test func aThrowingBatchLeavesNothing() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.collection
        let other = try fixture.database.createCollection(name: "other")
        try collection.save(document: MutableDocument(id: "keep").setInt(1, forKey: "n"))
        let before = try #require(try collection.document(id: "keep"))
        #expect(throws: Refusal.self) {
            try fixture.database.inBatch {
                try collection.save(document: MutableDocument(id: "new").setInt(1, forKey: "n"))
                try other.save(document: MutableDocument(id: "o"))
                try collection.delete(document: before)
                // Inside the batch, its own writes are visible.
                #expect(try collection.document(id: "new") != nil)
                #expect(try collection.document(id: "keep") == nil)
                #expect(collection.count == 1)
                throw Refusal()
            }
        }
        #expect(try collection.document(id: "new") == nil)
        #expect(try other.document(id: "o") == nil)
        #expect(try collection.document(id: "keep")?.sequence == before.sequence)
        #expect(collection.count == 1)
        // Sequences handed out inside the rolled-back batch are given again.
        let next = MutableDocument(id: "after")
        try collection.save(document: next)
        #expect(next.sequence == before.sequence + 1)
        // And the reopened database agrees.
        let database = try fixture.reopened()
        defer { try? database.close() }
        #expect(try database.defaultCollection().document(id: "new") == nil)
        #expect(try database.collection(name: "other")?.count == 0)
    }

    /// A reader thread polls while 1,000 batches each save the same ten documents with one
    /// number: every read of all ten (in one read-only batch, the database's read
    /// transaction) sees a single batch's number.
    @Test func aConcurrentReaderNeverSeesHalfABatch() throws {
        let fixture = try DatabaseFixture()
        let database = fixture.database
        let collection = try fixture.collection
        let ids = (0..<10).map { "d\($0)" }
        let done = ManagedFlag()
        let reader = Thread {
            var reads = 0
            var torn = 0
            while !done.isSet || reads == 0 {
                var values: [Int] = []
                try? database.inBatch {
                    values = ids.map { (try? collection.document(id: $0))?.int(forKey: "round") ?? -1 }
                }
                if Set(values).count != 1 { torn += 1 }
                reads += 1
            }
            done.report(reads: reads, torn: torn)
        }
        try database.inBatch {
            for id in ids { try collection.save(document: MutableDocument(id: id).setInt(0, forKey: "round")) }
        }
        reader.start()
        for round in 1...1_000 {
            try database.inBatch {
                for id in ids {
                    let doc = try #require(try collection.document(id: id)).toMutable()
                    try collection.save(document: doc.setInt(round, forKey: "round"))
                }
            }
        }
        done.set()
        let (reads, torn) = done.waitForReport()
        #expect(reads > 0)
        #expect(torn == 0)
        #expect(try collection.document(id: "d9")?.int(forKey: "round") == 1_000)
    }
}

/// A flag the test thread sets and a report the reader thread hands back.
final class ManagedFlag: @unchecked Sendable {
    // Invariant: every property is touched only while `condition` is locked.
    private let condition = NSCondition()
    private var flag = false
    private var result: (Int, Int)?

    var isSet: Bool {
        condition.lock()
        defer { condition.unlock() }
        return flag
    }

    func set() {
        condition.lock()
        flag = true
        condition.unlock()
    }

    func report(reads: Int, torn: Int) {
        condition.lock()
        result = (reads, torn)
        condition.broadcast()
        condition.unlock()
    }

    func waitForReport() -> (Int, Int) {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }
}

@Suite struct BatchCommitFailureTests {
    /// A batch whose collection is deleted inside it fails at commit, before editing any
    /// collection, and hands out its sequences again.
    @Test func aBatchIntoACollectionDeletedMeanwhileCommitsNothing() throws {
        let fixture = try DatabaseFixture()
        let kept = try fixture.collection
        let doomed = try fixture.database.createCollection(name: "doomed")
        try kept.save(document: MutableDocument(id: "before"))
        let last = try #require(try kept.document(id: "before")).sequence
        let error = #expect(throws: AccordError.self) {
            try fixture.database.inBatch {
                try kept.save(document: MutableDocument(id: "k"))
                try doomed.save(document: MutableDocument(id: "d"))
                try fixture.database.deleteCollection(name: "doomed")
            }
        }
        #expect(error?.code == .collectionNotFound)
        #expect(try kept.document(id: "k") == nil)
        let next = MutableDocument(id: "after")
        try kept.save(document: next)
        #expect(next.sequence == last + 1)
        // Nothing of the failed batch reached the CRDT document either.
        let database = try fixture.reopened()
        defer { try? database.close() }
        #expect(try database.defaultCollection().document(id: "k") == nil)
        #expect(try database.defaultCollection().count == 2)
    }
}
