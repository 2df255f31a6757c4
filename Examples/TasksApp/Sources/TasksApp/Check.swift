/// A failed expectation: the program prints it and exits 1, so `make test` fails.
struct CheckFailure: Error, CustomStringConvertible {
    var description: String
}

/// Stops the demo when `actual` is not `expected`, naming what was checked.
func check<T: Equatable>(_ what: String, _ actual: T, _ expected: T) throws(CheckFailure) {
    guard actual == expected else { throw CheckFailure(description: "\(what): got \(actual), expected \(expected)") }
    print("ok  \(what)")
}
