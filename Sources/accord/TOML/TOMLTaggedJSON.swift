import AccordCRDT
import AccordTOML

/// The tagged JSON form of the TOML conformance harnesses (toml-test): tables are
/// objects, arrays are arrays, and every scalar is `{"type": ..., "value": "<text>"}`.
enum TOMLTaggedJSON {
    static func json(_ table: TOMLTable) -> JSONValue {
        .object(table.entries.map { JSONValue.Member(key: $0.key, value: json($0.value)) })
    }

    static func json(_ value: TOMLValue) -> JSONValue {
        switch value {
        case .table(let t): return json(t)
        case .array(let items): return .array(items.map(json))
        case .string(let s): return tagged("string", s)
        case .integer(let i): return tagged("integer", String(i))
        case .float(let d):
            if d.isNaN { return tagged("float", "nan") }
            if d.isInfinite { return tagged("float", d < 0 ? "-inf" : "inf") }
            return tagged("float", d.description)
        case .boolean(let b): return tagged("bool", b ? "true" : "false")
        case .offsetDateTime(let d): return tagged("datetime", d.text)
        case .localDateTime(let d): return tagged("datetime-local", d.text)
        case .localDate(let d): return tagged("date-local", d.text)
        case .localTime(let d): return tagged("time-local", d.text)
        }
    }

    private static func tagged(_ type: String, _ value: String) -> JSONValue {
        .object([JSONValue.Member(key: "type", value: .string(type)), JSONValue.Member(key: "value", value: .string(value))])
    }

    /// The table a tagged JSON object stands for.
    static func table(_ json: JSONValue, path: String = "") throws(AccordError) -> TOMLTable {
        guard case .object(let members) = json else { throw invalid(path, "expected an object for a table") }
        var table = TOMLTable()
        for member in members {
            let key = member.key
            guard table[key] == nil else { throw invalid(path, "key \"\(key)\" given twice") }
            table.set(key, try value(member.value, path: path.isEmpty ? key : path + "." + key))
        }
        return table
    }

    static func value(_ json: JSONValue, path: String) throws(AccordError) -> TOMLValue {
        switch json {
        case .array(let items):
            var out: [TOMLValue] = []
            for (i, item) in items.enumerated() { out.append(try value(item, path: "\(path)[\(i)]")) }
            return .array(out)
        case .object(let members):
            if members.count == 2, let (type, text) = scalarTag(members) {
                return try scalar(type: type, text: text, path: path)
            }
            return .table(try table(json, path: path))
        default:
            throw invalid(path, "expected an object or an array (scalars are {\"type\": ..., \"value\": ...})")
        }
    }

    private static func scalarTag(_ members: [JSONValue.Member]) -> (String, String)? {
        var type: String?
        var text: String?
        for member in members {
            guard case .string(let s) = member.value else { return nil }
            if member.key == "type" { type = s } else if member.key == "value" { text = s } else { return nil }
        }
        guard let type, let text else { return nil }
        return (type, text)
    }

    private static func scalar(type: String, text: String, path: String) throws(AccordError) -> TOMLValue {
        switch type {
        case "string": return .string(text)
        case "integer":
            guard let i = Int64(text) else { throw invalid(path, "'\(text)' is not a 64-bit integer") }
            return .integer(i)
        case "float":
            switch text {
            case "inf", "+inf": return .float(.infinity)
            case "-inf": return .float(-.infinity)
            case "nan", "+nan", "-nan": return .float(.nan)
            default:
                guard let d = Double(text), d.isFinite else { throw invalid(path, "'\(text)' is not a float") }
                return .float(d)
            }
        case "bool":
            guard text == "true" || text == "false" else { throw invalid(path, "'\(text)' is not a bool") }
            return .boolean(text == "true")
        case "datetime", "datetime-local", "date-local", "time-local":
            // The TOML parser is the date reader: the same rules, one implementation.
            guard let parsed = try? TOML.parse("v = " + text)["v"] else {
                throw invalid(path, "'\(text)' is not a valid \(type)")
            }
            switch (type, parsed) {
            case ("datetime", .offsetDateTime), ("datetime-local", .localDateTime),
                ("date-local", .localDate), ("time-local", .localTime):
                return parsed
            default:
                throw invalid(path, "'\(text)' is not a \(type)")
            }
        default:
            throw invalid(path, "unknown type '\(type)'")
        }
    }

    private static func invalid(_ path: String, _ message: String) -> AccordError {
        AccordError(.malformedJSON, "stdin: \(path.isEmpty ? "" : path + ": ")\(message)", details: ["input": "stdin"])
    }
}
