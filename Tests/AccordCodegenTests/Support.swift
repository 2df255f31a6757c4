import AccordCodegen
import AccordCRDT
import AccordRecords
import Foundation

/// Paths of the example schema and of its committed output (`Generated/`, compiled
/// into this test target), found from this file so tests run from any directory.
enum CodegenFixture {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let generatedFolder = testsFolder.appendingPathComponent("Generated")
    static let exampleSchema = testsFolder.appendingPathComponent("../../Examples/TasksApp/Sources/TasksApp/models.toml")
        .standardizedFileURL

    static func models() throws -> [ModelSchema] { try SchemaLoader.loadSchema(path: exampleSchema.path) }

    static func generated(_ models: [ModelSchema]) throws -> [GeneratedFile] {
        try SwiftModelGenerator(sourceName: "models.toml").files(for: models)
    }
}

/// A fresh folder per test, removed when the test lets go of it.
final class ScratchFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("accord-codegen-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    var path: String { url.path }

    func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
    }

    /// Every file's relative path and bytes (folders too, empty): equal fingerprints mean
    /// an untouched folder.
    func fingerprint() throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for case let name as String in FileManager.default.enumerator(atPath: path)?.allObjects ?? [] {
            var isDirectory: ObjCBool = false
            let file = url.appendingPathComponent(name)
            _ = FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory)
            files[name] = isDirectory.boolValue ? [] : [UInt8](try Data(contentsOf: file))
        }
        return files
    }
}
