import AccordCRDT
import Foundation

/// `cold_open`: a large document opened by a server that has just started. The
/// automerge-paper trace's final state is uploaded once (one client sends it as one
/// update; a second client checks the server has it all), the server is stopped; then
/// for each sample a fresh server process starts on that data and a new client is timed
/// from connect until it has applied the server's sync step 2 (holding the whole text).
struct ColdOpenCase: LoadCase {
    let name = "cold_open"
    var tracePath: String
    var samples: Int
    static let document = "cold"

    func run(on server: ServerUnderTest, in environment: LoadEnvironment) async throws -> BenchRecord {
        let trace = try EditingTrace.load(path: tracePath)
        let update = try TraceReplay.replay(trace).encodeStateAsUpdate()
        let length = trace.endContent.utf16.count
        let files = try environment.serverFiles("\(server.kind.rawValue)-\(name)")

        let uploader = try await server.launch(dataDirectory: files.data, logPath: files.log + ".upload")
        do {
            try await upload(update, length: length, to: uploader)
            try uploader.process.checkAlive()
            await uploader.stop()
        } catch {
            await uploader.stop()
            throw error
        }

        var times: [Double] = []
        var residents: [Double] = []
        for sample in 0..<samples {
            let running = try await server.launch(dataDirectory: files.data, logPath: files.log + ".\(sample)")
            do {
                times.append(try await timeSync(running, length: length))
                if let rss = running.residentBytes() { residents.append(Double(rss)) }
                try running.process.checkAlive()
                await running.stop()
            } catch {
                await running.stop()
                throw error
            }
        }
        var record = BenchRecord(name: name + server.nameSuffix, trace: trace.name, timing: Timing(samples: times, warmup: 0))
        record["engine"] = .string(server.kind.rawValue)
        record["bytes"] = BenchRecord.int(update.count)
        record["text_length"] = BenchRecord.int(length)
        if !residents.isEmpty { record["rss_bytes"] = BenchRecord.int(Int(Timing(samples: residents, warmup: 0).median)) }
        return record
    }

    /// Sends `update` as one sync update and waits until a second client has the whole
    /// text, so the server has applied (and, both servers promise, stored) it.
    private func upload(_ update: [UInt8], length: Int, to running: RunningServer) async throws {
        let fleet = try running.fleet()
        let url = running.roomURL(Self.document)
        let (clients, failures) = await fleet.open(count: 2, window: 1, url: { _ in url }, make: { _ in try SyncClient() })
        guard failures.isEmpty, clients.count == 2, let sender = clients[0], let checker = clients[1] else {
            await fleet.stop()
            throw BenchFailure("\(name): cannot open the upload clients: \(failures.joined(separator: "; "))")
        }
        sender.sendRaw(ProtocolFrame.sync(.update(update)).encode())
        let arrived = await ClientFleet.poll(timeout: .seconds(120)) { checker.textLength == length }
        let got = checker.textLength
        // Room for a server that writes behind the broadcast (pycrdt's store does).
        try await Task.sleep(for: .milliseconds(500))
        await fleet.stop()
        guard arrived else {
            throw BenchFailure("\(name): after the upload a client has \(got) of \(length) UTF-16 units")
        }
    }

    /// Milliseconds from connect to the applied step 2 of a new client; checks its text.
    private func timeSync(_ running: RunningServer, length: Int) async throws -> Double {
        let fleet = try running.fleet()
        let client = try SyncClient()
        let start = ContinuousClock.now
        do {
            try await client.connect(fleet.pool, to: running.roomURL(Self.document))
            guard await client.waitSynced(timeout: .seconds(120)), let synced = client.synced else {
                throw BenchFailure("\(name): the client was not synced within 120 s")
            }
            guard client.textLength == length else {
                throw BenchFailure("\(name): the restarted server served \(client.textLength) of \(length) UTF-16 units")
            }
            await fleet.stop()
            return Timing.milliseconds(synced - start)
        } catch {
            await fleet.stop()
            throw error
        }
    }
}
