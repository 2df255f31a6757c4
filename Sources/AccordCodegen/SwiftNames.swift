import AccordCRDT
import AccordRecords

/// How schema names become Swift names. Schema names are already identifiers (a letter
/// or `_`, then letters, digits or `_`; ``ModelSchema/validate()`` checks), so the
/// only work is casing, singular type names and escaping keywords.
enum SwiftNames {
    /// The type of a model: each `_`-separated part capitalised, the last one made
    /// singular (`tasks` → `Task`, `task_labels` → `TaskLabel`, `categories` →
    /// `Category`, `boxes` → `Box`). The rule is small and fixed on purpose: a name it
    /// gets wrong (`news` → `New`) is still a valid, stable name.
    static func typeName(_ model: String) -> String {
        var parts = model.split(separator: "_").map(String.init)
        guard !parts.isEmpty else { return "Model_" }
        parts[parts.count - 1] = singular(parts[parts.count - 1])
        return parts.map(capitalized).joined()
    }

    static func singular(_ word: String) -> String {
        let lower = word.lowercased()
        if lower.hasSuffix("ies"), word.count > 3 { return String(word.dropLast(3)) + "y" }
        for ending in ["sses", "uses", "xes", "zes", "ches", "shes"] where lower.hasSuffix(ending) {
            return String(word.dropLast(2))
        }
        // `status`, `analysis`: already singular.
        if lower.hasSuffix("us") || lower.hasSuffix("is") { return word }
        if lower.hasSuffix("s"), !lower.hasSuffix("ss"), word.count > 1 { return String(word.dropLast()) }
        return word
    }

    static func capitalized(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }

    /// `title_project` → `titleProject`: enum cases for named constraints.
    static func lowerCamel(_ name: String) -> String {
        let parts = name.split(separator: "_").map(String.init)
        guard let first = parts.first else { return name }
        let head = first.prefix(1).lowercased() + first.dropFirst()
        return head + parts.dropFirst().map(capitalized).joined()
    }

    /// A name usable as a declaration or argument: keywords in backticks.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// Swift's keywords that cannot name a property, case or parameter unescaped.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do",
        "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "Type",
        "Protocol", "package", "consume", "copy", "borrowing", "consuming", "some", "any",
    ]

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Type names the generated code itself uses: a model type of one of these names
    /// would shadow it and break the file.
    static let reservedTypeNames: Set<String> = [
        "Model", "String", "Double", "Bool", "Int", "Date", "Set", "Array", "Optional", "Filter", "QueryOptions",
        "Include", "ModelSchema", "FieldSchema", "RecordStorage", "RecordValue", "AccordError", "DocumentID",
        "ModelPage", "AggregateOptions", "AggregateRow", "RecordSubscription", "RecordChange", "StringSet",
        "Relationship", "UniqueConstraint", "SortKey", "ClientRecords", "Decoder", "Encoder", "Codable", "Sendable",
        "Hashable", "Identifiable", "CaseIterable", "Foundation", "AccordCRDT", "AccordRecords", "AccordStore",
        "Field", "UniqueField", "UniqueConstraintName", "UniqueKey",
    ]

    /// Members every model has (from ``Model`` and its extensions, Swift's protocols,
    /// and the nested types codegen writes): no field or relationship may generate one.
    static let reservedMembers: Set<String> = [
        "storage", "document", "schema", "schemaHash", "init", "save", "delete", "find", "findAll", "query", "queryOne",
        "queryPaged", "count", "aggregate", "subscribe", "findByUnique", "upsertByUnique", "discardChanges",
        "markAllChanged", "referenced", "traverse", "traverseAll", "related", "encodeFields", "decodeFields", "encode",
        "boundRecords", "hashValue", "hash", "ID", "Field", "UniqueField", "UniqueConstraintName", "UniqueKey",
    ]
}
