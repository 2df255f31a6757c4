import AccordCRDT
import AccordRecords

/// The query parts of a records command line. What is wrong inside a filter or sort is
/// `INVALID_QUERY` (exit 65), as it is from the API; a malformed number is a usage error.
enum QueryArguments {
    /// The filter in the one optional positional argument (every record when absent).
    /// Text that is not JSON is `INVALID_QUERY` too, so a script sees one code for
    /// every bad filter; its shape is checked when the query runs.
    static func filter(_ positionals: [String], help: String) throws(AccordError) -> Filter {
        guard let text = positionals.first else { return .all }
        guard positionals.count == 1 else {
            throw AccordCommand.usageError("unexpected argument '\(positionals[1])' (one filter at most)", help: help)
        }
        return Filter(json: try json(text, path: "filter"))
    }

    /// JSON text given on the command line; `INVALID_QUERY` at `path` when it is not JSON.
    static func json(_ text: String, path: String) throws(AccordError) -> AnyValue {
        do throws(AccordError) {
            return try AnyValue(jsonText: text)
        } catch {
            throw AccordError(.invalidQuery, "\(path): not JSON (\(error.message))", details: ["path": path])
        }
    }

    /// `field:1,other:-1`; a key without a direction sorts ascending.
    static func sortOrder(_ text: String) throws(AccordError) -> [SortKey] {
        var keys: [SortKey] = []
        for (index, part) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            let direction: SortKey.Direction? = switch pieces.count == 2 ? String(pieces[1]) : (pieces.count == 1 ? "1" : "") {
            case "1", "+1", "asc": .ascending
            case "-1", "desc": .descending
            default: nil
            }
            guard let direction, !pieces[0].isEmpty else {
                throw AccordError(
                    .invalidQuery, "sort[\(index)]: expected field:1 or field:-1, not \"\(part)\"", details: ["path": "sort[\(index)]"])
            }
            keys.append(SortKey(String(pieces[0]), direction))
        }
        return keys
    }

    static func limit(_ text: String, help: String) throws(AccordError) -> Int {
        guard let limit = Int(text), limit >= 0 else {
            throw AccordCommand.usageError("--limit takes a whole number, not '\(text)'", help: help)
        }
        return limit
    }
}
