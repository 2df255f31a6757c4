import AccordCRDT

extension Model {
    /// Refuses a generated model whose ``schema`` no longer hashes to the
    /// ``schemaHash`` codegen embedded: the generated file was edited by hand, or was
    /// written by a codegen that reads schemas differently, so its typed properties
    /// may not match the schema it registers. Hand-written models (no hash) pass.
    /// - Throws: `INVALID_SCHEMA` with `details["reason"] = "schemaHashMismatch"`, telling
    ///   the developer to re-run `accord codegen`.
    static func checkSchemaHash() throws(AccordError) {
        guard let expected = schemaHash else { return }
        let actual = try schema.schemaHash
        guard actual != expected else { return }
        throw AccordError(
            .invalidSchema,
            "Model \"\(schema.name)\": the generated code was made from a schema with hash \(expected), but its schema now hashes to \(actual). Re-run `accord codegen` (or rebuild, with the AccordCodegenPlugin) to regenerate the model.",
            details: ["model": schema.name, "reason": "schemaHashMismatch", "expected": expected, "actual": actual])
    }
}
