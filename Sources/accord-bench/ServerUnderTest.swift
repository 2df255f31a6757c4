import Foundation

/// A y-websocket sync server the load cases run against: how to start it on a port of
/// the kernel's choosing with its data in a given directory, and the URL of a room.
/// Each launch is a fresh process, so a case can restart the server to measure a cold
/// start on the same data.
struct ServerUnderTest: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        case accord, pycrdt
    }

    let kind: Kind
    /// The executable and its arguments before the per-launch ones.
    let command: [String]
    /// For `--tls`: the server serves wss:// with a throwaway CA's certificate, and the
    /// clients trust that CA. nil: plain ws://.
    var tls: BenchTLS? = nil

    /// `accord serve --dev` (the `accord` binary next to `accord-bench` unless given).
    /// It prints `listening <port>` and `dev token: <token>`; rooms are
    /// `/v1/sync/<doc>?token=<token>`. The load comes from one address and one user
    /// (the dev token), so the per-address and per-user caps that guard a public
    /// server are lifted: they would refuse the 65th connection of the benchmark.
    static func accord(binary: String, tls: BenchTLS? = nil) -> ServerUnderTest {
        let certificate = tls.map { ["--tls-cert", $0.certificateFile, "--tls-key", $0.keyFile] } ?? []
        return ServerUnderTest(kind: .accord, command: [
            binary, "serve", "--dev", "--host", "127.0.0.1", "--port", "0",
            "--max-connections-per-address", "0", "--max-connections-per-user", "1000000",
            "--max-documents-per-user-per-hour", "1000000000",
        ] + certificate, tls: tls)
    }


    /// scripts/pycrdt_ws_server.py (pycrdt-websocket behind Hypercorn) with its SQLite
    /// store, so it persists like Accord does. It prints `listening <port>`; rooms are
    /// `/<doc>`.
    static func pycrdt(python: String, script: String) -> ServerUnderTest {
        ServerUnderTest(kind: .pycrdt, command: [python, script, "--host", "127.0.0.1", "--port", "0"])
    }

    /// Appended to every record name: the Accord records keep the case names.
    var nameSuffix: String { (kind == .accord ? "" : "_\(kind.rawValue)") + (tls == nil ? "" : "_tls") }

    /// Starts the server with its data in `dataDirectory` and waits for its startup lines.
    func launch(dataDirectory: String, logPath: String) async throws(BenchFailure) -> RunningServer {
        let dataArguments = kind == .accord ? ["--data", dataDirectory] : ["--store", dataDirectory]
        let process = try ServerProcess(
            executable: command[0], arguments: Array(command.dropFirst()) + dataArguments, logPath: logPath)
        do throws(BenchFailure) {
            let port = try await process.waitForLine("'listening <port>'") { line -> Int? in
                guard line.hasPrefix("listening ") else { return nil }
                return Int(line.dropFirst("listening ".count).trimmingCharacters(in: .whitespaces))
            }
            var token: String?
            if kind == .accord {
                token = try await process.waitForLine("'dev token: <token>'") { line -> String? in
                    guard line.hasPrefix("dev token: ") else { return nil }
                    return line.dropFirst("dev token: ".count).trimmingCharacters(in: .whitespaces)
                }
            }
            return RunningServer(kind: kind, process: process, port: port, token: token, tls: tls)
        } catch {
            await process.stop()
            throw error
        }
    }
}

/// A launched server: its process, port and room URLs.
struct RunningServer: Sendable {
    let kind: ServerUnderTest.Kind
    let process: ServerProcess
    let port: Int
    let token: String?
    let tls: BenchTLS?

    /// The y-websocket URL of document `document` (plain names: letters, digits, `-`).
    func roomURL(_ document: String) -> String {
        switch kind {
        case .accord:
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            let query = token.map { "?token=" + ($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0) } ?? ""
            // The certificate names localhost.
            let origin = tls == nil ? "ws://127.0.0.1:\(port)" : "wss://localhost:\(port)"
            return "\(origin)/v1/sync/\(document)\(query)"
        case .pycrdt:
            return "ws://127.0.0.1:\(port)/\(document)"
        }
    }

    func residentBytes() -> Int? { process.residentBytes() }

    /// A client fleet that reaches this server (trusting its CA under `--tls`).
    func fleet() throws(BenchFailure) -> ClientFleet { try ClientFleet(trusting: tls?.caFile) }

    func stop() async { await process.stop() }
}

/// `accord-bench server --tls`: a throwaway CA and a server certificate for localhost,
/// made with the openssl CLI (`TestPKI`) in a temporary directory for the run.
struct BenchTLS: Sendable {
    let certificateFile: String
    let keyFile: String
    let caFile: String
}
