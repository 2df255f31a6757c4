import Foundation

/// One measurement of `accord-bench server`, run once per server under test.
protocol LoadCase: Sendable {
    /// The record name for Accord; other servers' records add their suffix.
    var name: String { get }
    /// Runs the case against `server`, started (and stopped) by the case itself on fresh
    /// data under `environment`, and returns its record.
    func run(on server: ServerUnderTest, in environment: LoadEnvironment) async throws -> BenchRecord
}

/// What the cases share: where server data and logs go.
struct LoadEnvironment: Sendable {
    var workDirectory: String

    /// A new, empty directory for one server's data, and the path of its log file.
    func serverFiles(_ label: String) throws(BenchFailure) -> (data: String, log: String) {
        let data = (workDirectory as NSString).appendingPathComponent(label)
        do {
            try? FileManager.default.removeItem(atPath: data)
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        } catch {
            throw BenchFailure("cannot create \(data): \(error.localizedDescription)")
        }
        return (data, data + ".log")
    }
}

extension LoadCase {
    /// Launches `server` on fresh data, runs `body` with it and stops it, also when
    /// `body` throws.
    func withServer<T>(
        _ server: ServerUnderTest, _ environment: LoadEnvironment, _ body: (RunningServer) async throws -> T
    ) async throws -> T {
        let files = try environment.serverFiles("\(server.kind.rawValue)-\(name)")
        let running = try await server.launch(dataDirectory: files.data, logPath: files.log)
        do {
            let result = try await body(running)
            try running.process.checkAlive()
            await running.stop()
            return result
        } catch {
            await running.stop()
            throw error
        }
    }

    /// A record for `server` with this case's name (suffixed for servers other than Accord).
    func record(for server: ServerUnderTest) -> BenchRecord {
        BenchRecord(name: name + server.nameSuffix, engine: server.kind.rawValue)
    }
}

extension BenchRecord {
    /// Bytes as an integer figure; omitted when unknown.
    mutating func setBytes(_ key: String, _ bytes: Int?) {
        if let bytes { self[key] = BenchRecord.int(bytes) }
    }
}
