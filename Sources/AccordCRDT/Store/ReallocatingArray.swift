#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An array in one `malloc` block that grows by `realloc`: a value type with
/// copy-on-write, like `ContiguousArray`, for the document's largest arrays (its
/// items, types and values: ``Store``).
///
/// Why not `ContiguousArray`: it grows by allocating a block twice the size and
/// copying the elements over, so each doubling of a large document touches every page
/// it already had once more, each a page fault in the fresh block. Saving 100,000
/// records spent about a sixth of the saving thread in those copies and faults (perf,
/// `accord-bench records`). `realloc` of a large block moves its pages instead
/// (glibc remaps them; Darwin's allocator does the same), so growing costs only the
/// pages that are new.
///
/// Moving elements by `realloc` moves their bytes, which is how Swift moves any value
/// that holds no weak reference and no C++ object (the elements of ``Store`` hold
/// neither): `ContiguousArray` moves its elements the same way when it grows.
struct ReallocatingArray<Element> {
    /// Owns the block and its initialized elements: freed when the last copy of the
    /// array lets go.
    private final class Block {
        var base: UnsafeMutablePointer<Element>?
        /// How many elements are initialized (the owning array's count).
        var count: Int

        init(_ base: UnsafeMutablePointer<Element>?, count: Int) {
            self.base = base
            self.count = count
        }

        deinit {
            guard let base else { return }
            base.deinitialize(count: count)
            free(base)
        }
    }

    private var block: Block
    /// The block's start and count, kept here too so that reading an element costs no
    /// load of the block.
    private var base: UnsafeMutablePointer<Element>?
    private(set) var count = 0
    private(set) var capacity = 0

    init() {
        block = Block(nil, count: 0)
        base = nil
    }

    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> Element {
        @inline(__always)
        unsafeAddress {
            precondition(index >= 0 && index < count, "index out of range")
            return UnsafePointer(base.unsafelyUnwrapped + index)
        }
        @inline(__always)
        unsafeMutableAddress {
            precondition(index >= 0 && index < count, "index out of range")
            if !isKnownUniquelyReferenced(&block) { reallocate(minimumCapacity: count) }
            return base.unsafelyUnwrapped + index
        }
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity || !isKnownUniquelyReferenced(&block) { reallocate(minimumCapacity: count + 1) }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
        block.count = count
    }

    mutating func append<C: Collection>(contentsOf elements: C) where C.Element == Element {
        reserveCapacity(count + elements.count)
        for element in elements {
            // `elements.count` may disagree with its iteration (a misbehaving collection).
            if count == capacity { reallocate(minimumCapacity: count + 1) }
            (base.unsafelyUnwrapped + count).initialize(to: element)
            count += 1
            block.count = count
        }
    }

    /// Removes the last `k` elements.
    mutating func removeLast(_ k: Int) {
        precondition(k >= 0 && k <= count, "cannot remove \(k) of \(count) elements")
        guard k > 0 else { return }
        if !isKnownUniquelyReferenced(&block) { reallocate(minimumCapacity: count) }
        (base.unsafelyUnwrapped + count - k).deinitialize(count: k)
        count -= k
        block.count = count
    }

    /// Room for at least `minimumCapacity` elements without growing again.
    mutating func reserveCapacity(_ minimumCapacity: Int) {
        if minimumCapacity > capacity || !isKnownUniquelyReferenced(&block) {
            reallocate(minimumCapacity: minimumCapacity)
        }
    }

    func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<Element>) throws(E) -> R) throws(E) -> R {
        try withExtendedLifetime(block) { () throws(E) -> R in
            try body(UnsafeBufferPointer(start: base, count: count))
        }
    }

    /// Grows the block (at least doubling, so appends cost amortised constant time), or
    /// gives this array a block of its own when a copy shares it.
    @inline(never)
    private mutating func reallocate(minimumCapacity: Int) {
        let grown = minimumCapacity > capacity ? Swift.max(minimumCapacity, 2 * capacity, 16) : capacity
        let (bytes, overflow) = grown.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        precondition(!overflow, "array of \(grown) elements is too large")
        if isKnownUniquelyReferenced(&block) {
            // The elements move with their bytes; the block's count is unchanged.
            guard let moved = realloc(block.base, Swift.max(bytes, 1)) else { fatalError("out of memory: \(bytes) bytes") }
            block.base = moved.assumingMemoryBound(to: Element.self)
        } else {
            guard let fresh = malloc(Swift.max(bytes, 1)) else { fatalError("out of memory: \(bytes) bytes") }
            let copy = fresh.assumingMemoryBound(to: Element.self)
            if let base { copy.initialize(from: base, count: count) }
            block = Block(copy, count: count)
        }
        base = block.base
        capacity = grown
    }
}

extension ReallocatingArray: RandomAccessCollection {
    var startIndex: Int { 0 }
    var endIndex: Int { count }
}
