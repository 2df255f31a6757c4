import Accord
import Foundation

// TasksApp [--server <ws://host:port> --token <token>]
//
// Without a server: a client on a temporary SQLite store, offline, runs the demo.
// With one (e.g. `accord serve --dev`, whose token it prints): the demo runs on a
// synced document, then a second client on its own fresh store loads that document
// from the server and must see the same records.
let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tasksapp-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

do {
    if let server = option("--server") {
        try await ServerRun.run(server: server, token: option("--token") ?? "", folder: folder)
    } else {
        let client = try AccordClient(serverURL: "ws://127.0.0.1:9", storePath: folder.appendingPathComponent("tasks.sqlite").path) { _ in "" }
        await client.goOffline()
        await client.start()
        try await client.create("tasks", localOnly: true)
        try await client.registerModels(Demo.types)
        try await Demo.run(in: "tasks")
        await client.stop()
    }
} catch {
    FileHandle.standardError.write(Data("TasksApp failed: \(error)\n".utf8))
    exit(1)
}
