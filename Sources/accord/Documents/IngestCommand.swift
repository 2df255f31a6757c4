import AccordCRDT
import AccordRecords
import Dispatch
import Foundation

/// `accord documents ingest <document-id> --input DIR --server URL --token T [-y]
/// [--timeout S] [--no-wait]`: checks every line of DIR's `<model>.ndjson` files against
/// the document's models (from the server), asks for confirmation, uploads them in
/// chunks to an ingest session, commits it (the server applies everything as one
/// transaction) and follows its state on stderr until it completes.
///
/// Exit status: 0 complete (or committed, with `--no-wait`), 1 failed or refused
/// (a bad line, a refusal by the server, no confirmation), 2 usage, 124 `--timeout`
/// passed, 130 Ctrl-C. A timeout or Ctrl-C while uploading aborts the session, so
/// nothing is applied; once committed, the server finishes on its own.
enum IngestCommand {
    static let timedOut: Int32 = 124
    static let interrupted: Int32 = 130

    static func run(_ args: inout Arguments) -> Int32 {
        let session = SessionBox()
        let stop = StopWatch(session: session)
        do throws(AccordError) {
            let skipConfirmation = args.removeFlag("-y", "--yes")
            let noWait = args.removeFlag("--no-wait")
            let timeout = try args.removeOption("--timeout").map { text throws(AccordError) -> Double in
                guard let seconds = Double(text), seconds > 0 else {
                    throw AccordCommand.usageError("--timeout takes seconds, not '\(text)'", help: "accord documents --help")
                }
                return seconds
            }
            guard let input = try args.removeOption("--input", "-i") else {
                throw AccordCommand.usageError("--input is required", help: "accord documents --help")
            }
            let connection = try DocumentsCommand.serverOptions(&args)
            let positionals = try args.positionals()
            guard positionals.count == 1 else {
                throw AccordCommand.usageError("expected one <document-id>", help: "accord documents --help")
            }
            stop.start(connection: connection, timeout: timeout)
            let base = ServerConnection.documentPath(positionals[0]) + "/records"
            let schema = try connection.call("GET", base + "/$schema")
            let models = try ModelSchema.models(json: schema)
            let files = try IngestInput(directory: input, models: models)
            Output.error("checked \(files.records) records in \(files.files.joined(separator: ", "))")
            if !skipConfirmation {
                FileHandle.standardError.write(Data(
                    "ingest \(files.records) records into \(positionals[0]) on \(connection.base)? [y/N] ".utf8))
                let answer = readLine()?.lowercased() ?? ""
                guard answer == "y" || answer == "yes" else {
                    throw AccordError(.invalidArgument, "not confirmed; nothing was sent", details: ["input": input])
                }
            }
            let created = try connection.call("POST", base + "/$ingests", body: Array("{}".utf8))
            guard case .object(let fields) = created, case .string(let id)? = fields["id"] else {
                throw AccordError(.ioError, "the server's ingest session has no id")
            }
            session.set(path: base + "/$ingests/" + id)
            Output.error("session \(id)")
            for (number, chunk) in files.chunks.enumerated() {
                Output.error("uploading \(number + 1)/\(files.chunks.count)")
                try connection.call(
                    "POST", base + "/$ingests/\(id)/chunks?model=\(chunk.model)", body: chunk.bytes, contentType: "application/x-ndjson")
            }
            try connection.call("POST", base + "/$ingests/\(id)/commit", body: Array("{}".utf8))
            session.committed()
            Output.error("validating")
            if noWait {
                Output.print(#"{"session":"\#(id)","state":"validating"}"#)
                return ExitStatus.success
            }
            var last = "validating"
            while true {
                let state = try connection.call("GET", base + "/$ingests/\(id)")
                guard case .object(let fields) = state, case .string(let name)? = fields["state"] else {
                    throw AccordError(.ioError, "the server's session state has no state")
                }
                if name != last {
                    Output.error(name)
                    last = name
                }
                if name == "complete" {
                    Output.print(state.jsonText)
                    return ExitStatus.success
                }
                if name == "failed" {
                    Output.print(state.jsonText)
                    if case .object(let error)? = fields["error"], case .string(let code)? = error["code"],
                       case .string(let message)? = error["message"]
                    {
                        Output.error("error: \(code): \(message)")
                    }
                    return ExitStatus.other
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        } catch {
            Output.error("error: \(error)")
            if error.code == .invalidArgument, error.details["input"] == nil, error.details["file"] == nil,
               error.message.contains("see 'accord")
            {
                return ExitStatus.usage
            }
            return ExitStatus.other
        }
    }

    /// The session being uploaded, so a timeout or Ctrl-C can abort it.
    final class SessionBox: @unchecked Sendable {
        // Invariant behind @unchecked Sendable: fields only under `lock`.
        private let lock = NSLock()
        private var path: String?
        private var isCommitted = false

        func set(path: String) { lock.withLock { self.path = path } }
        func committed() { lock.withLock { isCommitted = true } }
        /// The session to abort: one created and not committed.
        var abortable: String? { lock.withLock { isCommitted ? nil : path } }
    }

    /// Ctrl-C and `--timeout`: abort an uncommitted session, then exit 130 or 124.
    final class StopWatch: @unchecked Sendable {
        let session: SessionBox
        // Kept alive for the process's life once started (set once, on the main thread).
        private var sources: [any DispatchSourceProtocol] = []

        init(session: SessionBox) { self.session = session }

        func start(connection: ServerConnection, timeout: Double?) {
            signal(SIGINT, SIG_IGN)
            let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            interrupt.setEventHandler { [session] in
                Self.stop(session, connection, status: IngestCommand.interrupted, "interrupted")
            }
            interrupt.resume()
            sources.append(interrupt)
            if let timeout {
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.schedule(deadline: .now() + timeout)
                timer.setEventHandler { [session] in
                    Self.stop(session, connection, status: IngestCommand.timedOut, "error: TIMED_OUT: --timeout \(timeout) s passed")
                }
                timer.resume()
                sources.append(timer)
            }
        }

        private static func stop(_ session: SessionBox, _ connection: ServerConnection, status: Int32, _ message: String) {
            if let path = session.abortable {
                _ = try? connection.call("DELETE", path)
                Output.error("\(message); the ingest session was aborted, nothing was applied")
            } else {
                Output.error(message)
            }
            // `_exit`, not `exit`: this runs on a dispatch thread while the main thread is
            // still uploading, and `exit` would run atexit handlers and static destructors
            // under it (a crash with SIGSEGV was seen). Output is unbuffered, nothing is lost.
            _exit(status)
        }
    }
}
