import Foundation
import PackagePlugin

/// `swift package generate-models [--target <name>]...`: writes each target's models,
/// one file per model, into `Models/Generated/` beside the target's schema file, for projects that review and
/// commit generated code (use this or the build tool plugin on a target, not both: the
/// types would be declared twice). Only paths are computed here; `accord codegen` does
/// the work. Foundation is needed only to run it (`Process`).
@main
struct GenerateModels: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let tool = try context.tool(named: "accord").url
        var generated = 0
        for case let target as SourceModuleTarget in targets {
            guard let schema = target.sourceFiles.first(where: { ["models.toml", "models.json"].contains($0.url.lastPathComponent) })
            else { continue }
            // Beside the schema file (usually the target's folder).
            let folder = schema.url.deletingLastPathComponent().appending(path: "Models").appending(path: "Generated")
            let process = Process()
            process.executableURL = tool
            process.arguments = ["codegen", "-i", schema.url.path, "-o", folder.path]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                Diagnostics.error("accord codegen failed for target \(target.name) (exit status \(process.terminationStatus))")
                throw GenerateModelsFailure(target: target.name)
            }
            generated += 1
        }
        if generated == 0 { Diagnostics.warning("generate-models: no target has a models.toml or models.json") }
    }
}

struct GenerateModelsFailure: Error, CustomStringConvertible {
    var target: String
    var description: String { "accord codegen failed for target \(target)" }
}
