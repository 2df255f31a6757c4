import AccordCRDT
import Dispatch
import Foundation

/// Runs independent server calls a few at a time: each export or import is one request
/// whose time is mostly the round trip and the files, so overlapping a few keeps both
/// ends busy. The first error wins and is rethrown; results keep the input's order.
enum Parallel {
    static let width = 8

    static func map<T: Sendable, R: Sendable>(
        _ items: [T], _ body: @escaping @Sendable (T) throws(AccordError) -> R
    ) throws(AccordError) -> [R] {
        let results = Results<R>(count: items.count)
        DispatchQueue.concurrentPerform(iterations: min(width, max(1, items.count))) { worker in
            var index = worker
            while index < items.count, !results.failed {
                do throws(AccordError) {
                    results.set(index, try body(items[index]))
                } catch {
                    results.fail(error)
                }
                index += width
            }
        }
        return try results.all()
    }

    static func forEach<T: Sendable>(_ items: [T], _ body: @escaping @Sendable (T) throws(AccordError) -> Void) throws(AccordError) {
        _ = try map(items) { item throws(AccordError) in try body(item) }
    }

    private final class Results<R: Sendable>: @unchecked Sendable {
        // Invariant behind @unchecked Sendable: every field only under `lock`.
        private let lock = NSLock()
        private var values: [R?]
        private var error: AccordError?

        init(count: Int) { values = Array(repeating: nil, count: count) }

        var failed: Bool { lock.withLock { error != nil } }
        func set(_ index: Int, _ value: R) { lock.withLock { values[index] = value } }
        func fail(_ failure: AccordError) { lock.withLock { if error == nil { error = failure } } }

        func all() throws(AccordError) -> [R] {
            let (values, error) = lock.withLock { (self.values, self.error) }
            if let error { throw error }
            return values.compactMap { $0 }
        }
    }
}
