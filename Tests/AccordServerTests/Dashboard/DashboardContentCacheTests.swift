import AccordCRDT
import AccordStore
import Foundation
import Testing
@testable import AccordServer

/// The document page's content trees: encoded again only for a new state of the
/// document, and at most once per quarter second per document.
struct DashboardContentCacheTests {
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var milliseconds: UInt64 = 1_000_000
        var now: UInt64 { lock.withLock { milliseconds } }
        func advance(_ by: UInt64) { lock.withLock { milliseconds += by } }
    }

    @Test func aTreeIsEncodedOncePerStateAndAtMostFourTimesASecond() throws {
        let clock = Clock()
        let cache = DashboardContentCache(now: { clock.now })
        var encodings = 0
        func ask(_ key: DashboardContentCache.Key, _ text: String) throws -> DashboardContentCache.Answer {
            try cache.content("doc", key: key) { () throws(AccordError) -> AnyValue in
                encodings += 1
                return .string(text)
            }
        }
        let first = DashboardContentCache.Key.room(.init(generation: 1, revision: 1))
        let second = DashboardContentCache.Key.room(.init(generation: 1, revision: 2))

        #expect(try ask(first, "one").content == .string("one") && encodings == 1)
        // The same state: the cached tree, however soon or late.
        clock.advance(10_000)
        let same = try ask(first, "unused")
        #expect(same.content == .string("one") && same.current && encodings == 1)
        #expect(!cache.wouldEncode("doc", key: first))

        // A new state long after the last encoding: encoded now.
        #expect(cache.wouldEncode("doc", key: second))
        #expect(try ask(second, "two").current && encodings == 2)
        // Another new state 100 ms later: the older tree, marked not current, with when to ask again.
        let third = DashboardContentCache.Key.room(.init(generation: 1, revision: 3))
        clock.advance(100)
        #expect(!cache.wouldEncode("doc", key: third))
        let early = try ask(third, "three")
        #expect(early.content == .string("two") && !early.current && early.retryInMilliseconds == 150 && encodings == 2)
        clock.advance(150)
        let later = try ask(third, "three")
        #expect(later.content == .string("three") && later.current && encodings == 3)

        // A reloaded room with the same revision number is another state.
        #expect(cache.wouldEncode("doc", key: .room(.init(generation: 2, revision: 3))) == false, "within a quarter second")
        clock.advance(250)
        #expect(cache.wouldEncode("doc", key: .room(.init(generation: 2, revision: 3))))
        #expect(cache.wouldEncode("doc", key: .stored(size: 10, updated: 5)))

        cache.forget("doc")
        #expect(cache.wouldEncode("doc", key: third))
    }

    @Test func theCacheKeepsABoundedNumberOfDocuments() throws {
        let clock = Clock()
        let cache = DashboardContentCache(now: { clock.now })
        for index in 0..<(DashboardContentCache.capacity + 10) {
            clock.advance(1)
            _ = try cache.content(DocumentID(validating: "d\(index)"), key: .stored(size: index, updated: 0)) { () throws(AccordError) -> AnyValue in .null }
        }
        // The oldest went first; the newest are kept.
        #expect(cache.wouldEncode(try DocumentID(validating: "d0"), key: .stored(size: 0, updated: 0)))
        let newest = DashboardContentCache.capacity + 9
        #expect(!cache.wouldEncode(try DocumentID(validating: "d\(newest)"), key: .stored(size: newest, updated: 0)))
    }
}
