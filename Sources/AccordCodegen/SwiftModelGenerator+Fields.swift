import AccordRecords
import Foundation

/// Typed properties, the memberwise initializer and the `Field` names.
///
/// Optionality: a field is optional unless it has a (non-null) default, because a
/// record may lack it (not set yet, or written by a peer that left it out). With a
/// default, the property reads the default while the record has no value, which is
/// what a save writes. An `autoAssign` field stays optional: it has no value until
/// the first save. A string set is a non-optional `Set<String>` (absent reads empty).
extension SwiftModelGenerator {
    func writeProperty(_ field: FieldSchema, to text: inout SourceText) {
        let name = SwiftNames.escaped(field.name)
        let key = SwiftNames.literal(field.name)
        let fallback = Self.defaultExpression(field)
        text.line("/// `\(field.name)`: \(Self.summary(field)).")
        switch field.type {
        case .id, .string, .number, .boolean:
            let (swiftType, getter) = Self.scalar(field.type)
            text.block("public var \(name): \(swiftType)\(fallback == nil ? "?" : "") {") { body in
                body.line("get { storage.\(getter)(\(key))\(fallback.map { " ?? \($0)" } ?? "") }")
                body.line("set { storage.set(\(key), newValue) }")
            }
        case .date:
            text.block("public var \(name): Date\(fallback == nil ? "?" : "") {") { body in
                body.line("get { storage.date(\(key))\(fallback.map { " ?? \($0)" } ?? "") }")
                body.line("set { storage.set(\(key), newValue) }")
            }
            text.line()
            text.line("/// `\(field.name)` as stored: its ISO-8601 text, what filters and sorts compare.")
            let textFallback = field.defaultValue.flatMap { value -> String? in
                if case .string(let iso) = value { return SwiftNames.literal(iso) }
                return nil
            }
            text.block("public var \(SwiftNames.escaped(field.name + "ISO8601")): String\(textFallback == nil ? "?" : "") {") { body in
                body.line("get { storage.string(\(key))\(textFallback.map { " ?? \($0)" } ?? "") }")
                body.line("set { storage.set(\(key), newValue) }")
            }
        case .stringSet:
            text.block("public var \(name): Set<String> {") { body in
                if let fallback {
                    body.line("get { storage[\(key)] == nil ? \(fallback) : Set(storage.stringSet(\(key))) }")
                } else {
                    body.line("get { Set(storage.stringSet(\(key))) }")
                }
                body.line("set { storage.set(\(key), StringSet(newValue)) }")
            }
        }
    }

    /// `init(id:title:...)`: a new record with the values given; a nil argument writes
    /// nothing, so the schema's default fills it at save.
    func writeMemberwiseInit(_ fields: [FieldSchema], to text: inout SourceText) {
        text.line("/// A new record with the values given (nil leaves a field out; a default fills it at save).")
        text.line("public init(")
        let parameters = ["id: String? = nil"] + fields.map { "\(SwiftNames.escaped($0.name)): \(Self.parameterType($0.type))? = nil" }
        for (index, parameter) in parameters.enumerated() {
            text.line("    \(parameter)\(index == parameters.count - 1 ? "" : ",")")
        }
        text.block(") {") { body in
            body.line("storage = RecordStorage(id: id)")
            for field in fields {
                let name = SwiftNames.escaped(field.name)
                body.line("if let \(name) { self.\(name) = \(name) }")
            }
        }
    }

    func writeFieldNames(_ model: ModelSchema, type: String, to text: inout SourceText) {
        let example = model.fields.first { $0.name != ModelSchema.idField }?.name ?? ModelSchema.idField
        text.block("extension \(type) {") { body in
            body.line("/// The field names, for filters and sorts: `[\(type).Field.\(example).rawValue: ...]`.")
            body.block("public enum Field: String, Sendable, CaseIterable {") { list in
                for field in model.allFields { list.line("case \(SwiftNames.escaped(field.name))") }
            }
        }
    }

    static func parameterType(_ type: FieldType) -> String {
        switch type {
        case .id, .string: return "String"
        case .number: return "Double"
        case .boolean: return "Bool"
        case .date: return "Date"
        case .stringSet: return "Set<String>"
        }
    }

    private static func scalar(_ type: FieldType) -> (swiftType: String, getter: String) {
        switch type {
        case .number: return ("Double", "number")
        case .boolean: return ("Bool", "bool")
        default: return ("String", "string")
        }
    }

    /// The Swift expression of the field's default, nil when it has none (or null).
    static func defaultExpression(_ field: FieldSchema) -> String? {
        switch (field.type, field.defaultValue) {
        case (_, nil), (_, .null?): return nil
        case (.date, .string(let text)?):
            return ISODate.seconds(text).map { "Date(timeIntervalSince1970: \($0))" }
        case (_, .string(let text)?): return SwiftNames.literal(text)
        case (_, .number(let number)?): return "\(number)"
        case (_, .bool(let flag)?): return "\(flag)"
        case (_, .stringSet(let set)?): return "[\(set.members.map(SwiftNames.literal).joined(separator: ", "))]"
        }
    }

    /// `string, indexed, unique, default "x"`: the schema options in a doc comment.
    static func summary(_ field: FieldSchema) -> String {
        var parts = [field.type.rawValue]
        if field.indexed { parts.append("indexed") }
        if field.unique { parts.append("unique") }
        if field.autoAssign { parts.append("auto-assigned") }
        if let maxCount = field.maxCount { parts.append("at most \(maxCount) members") }
        if let value = field.defaultValue { parts.append("default \(value.json.jsonText)") }
        return parts.joined(separator: ", ")
    }
}
