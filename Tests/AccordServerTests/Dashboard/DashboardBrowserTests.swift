import AccordServer
import AccordTesting
import Foundation
import Testing

/// The dashboard in a real browser: `accord serve --dev` as a child process, headless
/// Chromium driven by `scripts/dashboard_browser_check.py` (Selenium, chromium-driver)
/// while y-websocket clients edit, share presence and lose a grant. One browser session
/// runs every check; the script reports each one and this test asserts them all.
/// Screenshots of every page at 1280x800 and 390x844 land in `.build/dashboard-screenshots/`.
///
/// A machine without chromium or chromium-driver fails here with the reason (`make deps`
/// installs both): the dashboard is never reported as tested when it was not.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct DashboardBrowserTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every check the script makes; a check missing from its output fails too.
    static let checks = [
        "wrong_token_refused", "sign_in", "document_appears_in_table", "document_shows_text", "edit_shows_within_1s",
        "awareness_appears_and_disappears", "revoke_refuses_next_write", "title_markup_shown_as_text",
        "blob_downloads", "people_lists_connected_user", "people_lists_collections", "no_console_errors",
        "csp_blocks_inline_script", "phone_viewport_fits",
    ]

    @Test func theDashboardWorksInAHeadlessBrowser() async throws {
        guard let python = ProcessInfo.processInfo.environment["ACCORD_PYTHON"], !python.isEmpty else {
            throw TestFailure("ACCORD_PYTHON is not set; run `make test`, which sets up the venv with selenium")
        }
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(dataDirectory: directory.path)
        let tokens = try TokenAuthority(secret: ServerSecret.load(secretFile: directory.path + "/dev.secret", environment: [:]))
        let screenshots = Self.root.appendingPathComponent(".build/dashboard-screenshots").path

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            Self.root.appendingPathComponent("scripts/dashboard_browser_check.py").path,
            "--base", "http://127.0.0.1:\(serve.port)",
            // The admin claim, not the dev user: the dashboard must honour `accord token --admin`.
            "--admin-token", tokens.mint(subject: "ops", ttl: 3600, admin: true),
            "--alice-token", tokens.mint(subject: "alice", ttl: 3600),
            "--bob-token", tokens.mint(subject: "bob", ttl: 3600),
            "--screenshots", screenshots,
        ]
        let output = Pipe()
        process.standardOutput = output
        // A file, so a chatty driver can never block on a full pipe while stdout is read.
        let errorsPath = directory.path + "/browser-check.stderr"
        _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errorsPath)
        try process.run()
        let (status, stdout) = try await onThread { () -> (Int32, String) in
            let out = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: out, as: UTF8.self))
        }
        let stderr = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
        #expect(serve.terminate() == 0)
        guard status == 0 else {
            throw TestFailure("the browser checks could not run (exit \(status)): \(stderr.suffix(3000)) \(stdout.suffix(1000))")
        }
        let line = try #require(stdout.split(separator: "\n").last, "no output; stderr: \(stderr.suffix(2000))")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let results = try #require(report["checks"] as? [String: [String: Any]])
        for name in Self.checks {
            let result = results[name]
            #expect(result?["ok"] as? Bool == true, "\(name): \(result?["detail"] as? String ?? "not run; stderr: \(stderr.suffix(2000))")")
        }
        let shots = report["screenshots"] as? [String] ?? []
        #expect(shots.count == 10, "screenshots: \(shots)")
        for shot in shots { #expect(FileManager.default.fileExists(atPath: shot), "missing screenshot \(shot)") }
    }
}
