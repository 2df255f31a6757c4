import PackagePlugin

/// Runs `accord codegen` over the target's `models.toml` (or `models.json`) on every
/// build, into the plugin work directory, so the generated models compile with the
/// target and nothing is run by hand. SwiftPM reruns the command when the schema file
/// (its input) or the `accord` tool changes.
///
/// All models go into one file: a build command must name its outputs before it runs,
/// and knowing one file per model would mean reading the schema here; the plugin only
/// computes paths and runs the tool (the work, and its tests, live in AccordCodegen).
@main
struct AccordCodegenPlugin: BuildToolPlugin {
    static let schemaNames = ["models.toml", "models.json"]
    static let outputName = "AccordGeneratedModels.swift"

    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let schemas = target.sourceFiles.filter { Self.schemaNames.contains($0.url.lastPathComponent) }
        guard let schema = schemas.first else {
            Diagnostics.warning("AccordCodegenPlugin: target \(target.name) has no models.toml or models.json")
            return []
        }
        if schemas.count > 1 {
            Diagnostics.error("AccordCodegenPlugin: target \(target.name) has \(schemas.count) schema files; keep one")
            return []
        }
        let folder = context.pluginWorkDirectoryURL.appending(path: "Generated")
        return [
            .buildCommand(
                displayName: "Generating models of \(target.name) from \(schema.url.lastPathComponent)",
                executable: try context.tool(named: "accord").url,
                arguments: ["codegen", "-i", schema.url.path, "-o", folder.path, "--single-file", Self.outputName, "--quiet"],
                inputFiles: [schema.url],
                outputFiles: [folder.appending(path: Self.outputName)])
        ]
    }
}
