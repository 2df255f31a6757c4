import Testing
@testable import AccordCRDT

@Suite struct ReallocatingArrayTests {
    /// Counts live instances, so the tests see every element released exactly once.
    final class Tracked {
        nonisolated(unsafe) static var live = 0
        let value: Int
        init(_ value: Int) {
            self.value = value
            Tracked.live += 1
        }
        deinit { Tracked.live -= 1 }
    }

    /// An element that holds a reference, as the store's values and types do.
    struct Element {
        var number: Int
        var object: Tracked
        init(_ number: Int) {
            self.number = number
            object = Tracked(number)
        }
    }

    /// Appends, writes in place, removes and reserves, against an `Array` doing the same,
    /// through many growths (the block is reallocated at every doubling).
    @Test func behavesAsAnArrayThroughManyGrowths() {
        var random = SystemRandomNumberGenerator()
        var array = ReallocatingArray<Int>()
        var reference: [Int] = []
        for step in 0..<20_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                array.append(step)
                reference.append(step)
            case 6:
                let more = (0..<Int.random(in: 0..<40, using: &random)).map { step * 100 + $0 }
                array.append(contentsOf: more)
                reference.append(contentsOf: more)
            case 7 where !reference.isEmpty:
                let index = Int.random(in: 0..<reference.count, using: &random)
                array[index] += 7
                reference[index] += 7
            case 8 where !reference.isEmpty:
                let k = Int.random(in: 0...min(5, reference.count), using: &random)
                array.removeLast(k)
                reference.removeLast(k)
            default:
                array.reserveCapacity(array.count + Int.random(in: 0..<100, using: &random))
            }
            #expect(array.count == reference.count)
        }
        #expect(Array(array) == reference)
        #expect(array.capacity >= array.count)
        #expect(array.withUnsafeBufferPointer { Array($0) } == reference)
        #expect(Array(array[3..<10]) == Array(reference[3..<10]))
    }

    /// A copy keeps what it had while the original changes, and the other way round
    /// (copy on write), also when the change grows the block.
    @Test func copiesDoNotSeeEachOthersWrites() {
        var original = ReallocatingArray<Int>()
        for i in 0..<100 { original.append(i) }
        let snapshot = original
        original[5] = -1
        original.append(100)
        original.removeLast(3)
        #expect(Array(snapshot) == Array(0..<100))
        #expect(original[5] == -1 && original.count == 98)

        var copy = original
        copy[0] = 42
        #expect(original[0] == 0 && copy[0] == 42)
        for i in 0..<1_000 { copy.append(i) }
        #expect(original.count == 98 && copy.count == 1_098)
    }

    /// Elements holding references are retained once per array holding them and
    /// released when removed, overwritten, or when the last copy goes.
    @Test func referencesAreReleasedExactlyOnce() {
        let before = Tracked.live
        do {
            var array = ReallocatingArray<Element>()
            for i in 0..<5_000 { array.append(Element(i)) }
            #expect(Tracked.live - before == 5_000)
            array.removeLast(1_000)
            #expect(Tracked.live - before == 4_000)
            array[0] = Element(-1)
            #expect(Tracked.live - before == 4_000)

            var copy = array
            copy[1] = Element(-2)  // the copy gets its own block: both hold the others
            #expect(Tracked.live - before == 4_001)
            #expect(array[1].object.value == 1 && copy[1].object.value == -2)
            copy.append(contentsOf: [Element(7), Element(8)])
            #expect(Tracked.live - before == 4_003)
            #expect(array[0].object.value == -1 && array[3_999].number == 3_999)
        }
        #expect(Tracked.live == before)
    }
}
