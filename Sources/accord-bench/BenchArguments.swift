/// Walks a subcommand's arguments: the current word, and the values options take.
/// One cursor for every subcommand, so they all read options the same way.
struct BenchArguments {
    private let words: [String]
    private var index = 0

    init(_ words: [String]) { self.words = words }

    /// The next word to interpret, nil when all are read. Each call moves past the
    /// word returned before (and any value taken for it).
    mutating func next() -> String? {
        guard index < words.count else { return nil }
        defer { index += 1 }
        return words[index]
    }

    /// The value that follows `option`.
    mutating func value(_ option: String) throws(BenchFailure) -> String {
        guard index < words.count else { throw BenchFailure.usage("\(option) needs a value") }
        defer { index += 1 }
        return words[index]
    }

    /// The comma-separated names following `option` (`--only a,b`), each one of `known`;
    /// `kind` names them in the error (`"case"`, `"measurement"`).
    mutating func names(_ option: String, from known: [String], kind: String) throws(BenchFailure) -> Set<String> {
        let names = Set(try value(option).split(separator: ",").map(String.init))
        let unknown = names.subtracting(known)
        guard unknown.isEmpty else {
            throw BenchFailure.usage("unknown \(kind)(s) \(unknown.sorted().joined(separator: ", "))")
        }
        return names
    }

    /// A whole number of at least 1 following `option`.
    mutating func count(_ option: String) throws(BenchFailure) -> Int {
        let text = try value(option)
        guard let n = Int(text), n >= 1 else { throw BenchFailure.usage("\(option) needs a whole number >= 1, not '\(text)'") }
        return n
    }
}
