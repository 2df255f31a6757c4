import AccordCRDT

/// The words of a command line, consumed as a command reads them.
///
/// A hand-written parser instead of swift-argument-parser: the package takes no outside
/// dependencies, and the commands need only verbs, flags, one option and positionals.
/// Options may appear anywhere after the verb; `--` ends them.
struct Arguments {
    private var words: [String]
    /// Index of `--` in `words`, if any: words after it are never options.
    private var optionsEnd: Int

    init(_ words: [String]) {
        self.words = words
        optionsEnd = words.firstIndex(of: "--") ?? words.count
    }

    /// The next word (a verb or sub-verb), removed.
    mutating func popFirst() -> String? {
        guard !words.isEmpty else { return nil }
        if optionsEnd == 0 {
            // The `--` itself: drop it, what follows is positional anyway.
            words.removeFirst()
            optionsEnd = -1
            return popFirst()
        }
        optionsEnd -= 1
        return words.removeFirst()
    }

    /// Removes every occurrence of a flag; true when there was one.
    mutating func removeFlag(_ names: String...) -> Bool {
        var found = false
        var i = 0
        while i < optionsEnd {
            if names.contains(words[i]) {
                words.remove(at: i)
                optionsEnd -= 1
                found = true
            } else {
                i += 1
            }
        }
        return found
    }

    /// Removes `name value` (or `name=value`) and returns the value; nil when absent.
    /// - Throws: ``ErrorCode/invalidArgument`` when the value is missing or the option
    ///   is given twice.
    mutating func removeOption(_ names: String...) throws(AccordError) -> String? {
        var value: String?
        var i = 0
        while i < optionsEnd {
            let word = words[i]
            var found: String?
            if names.contains(word) {
                guard i + 1 < optionsEnd else {
                    throw AccordError(.invalidArgument, "\(word) needs a value")
                }
                found = words[i + 1]
                words.removeSubrange(i...(i + 1))
                optionsEnd -= 2
            } else if let name = names.first(where: { word.hasPrefix($0 + "=") }) {
                found = String(word.dropFirst(name.count + 1))
                words.remove(at: i)
                optionsEnd -= 1
            } else {
                i += 1
                continue
            }
            guard value == nil else { throw AccordError(.invalidArgument, "\(word) given twice") }
            value = found
        }
        return value
    }

    /// Everything left, which must be positional.
    /// - Throws: ``ErrorCode/invalidArgument`` for a leftover word that looks like an option.
    func positionals() throws(AccordError) -> [String] {
        var out: [String] = []
        for (i, word) in words.enumerated() {
            if i == optionsEnd { continue }  // the `--`
            if i < optionsEnd, word.hasPrefix("-"), word != "-" {
                throw AccordError(.invalidArgument, "unknown option '\(word)'")
            }
            out.append(word)
        }
        return out
    }
}
