/// The parameters of one run of a statement, built for many-row statements that run
/// over and over: texts are copied once, as UTF-8, into one buffer that SQLite reads in
/// place while the statement steps (``SQLiteStatement/run(_:)``), and each parameter is a
/// plain value (no `String` to retain and release per parameter, no buffer put together
/// again per run). Emptied with ``removeAll()`` and filled again, it keeps its memory.
public struct SQLiteParameters {
    /// One parameter. Text is a stretch of ``texts``.
    enum Parameter {
        case null
        case integer(Int64)
        case real(Double)
        case text(start: Int, count: Int)
    }

    private(set) var parameters: [Parameter] = []
    /// The UTF-8 of every text parameter, one after another.
    private(set) var texts: [UInt8] = []

    public init() {}

    /// Room for `parameters` parameters and `textBytes` bytes of text.
    public init(reserving parameters: Int, textBytes: Int) {
        self.parameters.reserveCapacity(parameters)
        texts.reserveCapacity(textBytes)
    }

    public var count: Int { parameters.count }
    public var isEmpty: Bool { parameters.isEmpty }

    public mutating func removeAll() {
        parameters.removeAll(keepingCapacity: true)
        texts.removeAll(keepingCapacity: true)
    }

    public mutating func appendNull() { parameters.append(.null) }

    /// `count` NULL parameters, to be set later with ``set(_:at:)`` and friends.
    public mutating func appendNulls(_ count: Int) {
        parameters.append(contentsOf: repeatElement(.null, count: count))
    }

    public mutating func append(_ number: Int64) { parameters.append(.integer(number)) }

    public mutating func append(_ number: Double) { parameters.append(.real(number)) }

    public mutating func append(_ text: String) {
        parameters.append(copy(text))
    }

    /// Sets parameter `index` (from 0) to an integer.
    public mutating func set(_ number: Int64, at index: Int) { parameters[index] = .integer(number) }

    /// Sets parameter `index` (from 0) to a real.
    public mutating func set(_ number: Double, at index: Int) { parameters[index] = .real(number) }

    /// Sets parameter `index` (from 0) to `text`.
    public mutating func set(_ text: String, at index: Int) { parameters[index] = copy(text) }

    /// Sets parameter `index` (from 0) to the text `write` appends to the buffer it is
    /// given (UTF-8; it may only append): text built in place, with no `String` made.
    public mutating func setText(at index: Int, _ write: (inout [UInt8]) -> Void) {
        let start = texts.count
        write(&texts)
        parameters[index] = .text(start: start, count: texts.count - start)
    }

    private mutating func copy(_ text: String) -> Parameter {
        let start = texts.count
        var text = text
        text.withUTF8 { texts.append(contentsOf: $0) }
        return .text(start: start, count: texts.count - start)
    }
}
