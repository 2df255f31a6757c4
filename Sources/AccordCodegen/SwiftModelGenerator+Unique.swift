import AccordRecords

/// Typed unique keys: `save(in:upsertOn:)` takes a `UniqueField` (single-field unique
/// fields only), `upsertByUnique(_:in:mode:)` a `UniqueConstraintName`, and
/// `findByUnique(_:)` a `UniqueKey` carrying typed values, so a misspelt field or a
/// value of the wrong type does not compile. Dates in keys are their ISO-8601 text,
/// the stored form the constraint compares.
extension SwiftModelGenerator {
    func writeUnique(_ model: ModelSchema, type: String, to text: inout SourceText) {
        let cases = UniqueCase.all(model)
        let fields = cases.filter(\.isField)
        text.block("extension \(type) {") { body in
            if !fields.isEmpty {
                body.line("/// The single-field unique fields, for `save(in:upsertOn:)`.")
                body.block("public enum UniqueField: String, Sendable, CaseIterable {") { list in
                    for unique in fields { list.line("case \(SwiftNames.escaped(unique.caseName))") }
                }
                body.line()
                body.line("/// Saves the record into `document`; when a record of the document already holds this")
                body.line("/// record's value of `field`, that record is updated instead.")
                body.line("@discardableResult")
                body.block("public func save(in document: DocumentID, upsertOn field: UniqueField) async throws(AccordError) -> \(type) {") {
                    $0.line("try await save(in: document, upsertOnField: field.rawValue)")
                }
                body.line()
            }
            body.line("/// Every unique constraint (unique fields, then named constraints), for `upsertByUnique`.")
            body.block("public enum UniqueConstraintName: String, Sendable, CaseIterable {") { list in
                for unique in cases {
                    let name = SwiftNames.escaped(unique.caseName)
                    list.line(unique.caseName == unique.constraint ? "case \(name)" : "case \(name) = \(SwiftNames.literal(unique.constraint))")
                }
            }
            body.line()
            body.line("/// Saves the record into `document`, updating the record of the document that holds this")
            body.line("/// record's values of `constraint` (see `ClientRecords.UpsertMode`).")
            body.line("@discardableResult")
            body.line("public func upsertByUnique(")
            body.line("    _ constraint: UniqueConstraintName, in document: DocumentID, mode: ClientRecords.UpsertMode = .either")
            body.block(") async throws(AccordError) -> \(type) {") {
                $0.line("try await upsertByUnique(constraint.rawValue, in: document, mode: mode)")
            }
            body.line()
            body.line("/// The values of one unique constraint, for `findByUnique(_:)`.")
            body.block("public enum UniqueKey: Sendable, Hashable {") { list in
                for unique in cases {
                    let values = unique.fields.map { field in
                        let type = Self.keyType(field.type)
                        return unique.isField ? type : "\(SwiftNames.escaped(field.name)): \(type)"
                    }
                    list.line("case \(SwiftNames.escaped(unique.caseName))(\(values.joined(separator: ", ")))")
                }
            }
            body.line()
            body.line("/// The record holding `key` (the smallest id when replicas created it twice offline).")
            body.block("public static func findByUnique(_ key: UniqueKey) throws(AccordError) -> \(type)? {") { function in
                function.line("switch key {")
                for unique in cases {
                    let bindings = unique.fields.map { "let \(SwiftNames.escaped($0.name))" }.joined(separator: ", ")
                    function.line("case .\(SwiftNames.escaped(unique.caseName))(\(bindings)):")
                    let values = unique.fields.map { field in
                        "\(SwiftNames.literal(field.name)): \(Self.recordValue(field.type, SwiftNames.escaped(field.name)))"
                    }
                    function.line("    return try findByUnique(\(SwiftNames.literal(unique.constraint)), [\(values.joined(separator: ", "))])")
                }
                function.line("}")
            }
        }
    }

    private static func keyType(_ type: FieldType) -> String {
        switch type {
        case .number: return "Double"
        case .boolean: return "Bool"
        default: return "String"
        }
    }

    private static func recordValue(_ type: FieldType, _ name: String) -> String {
        switch type {
        case .number: return ".number(\(name))"
        case .boolean: return ".bool(\(name))"
        default: return ".string(\(name))"
        }
    }
}
