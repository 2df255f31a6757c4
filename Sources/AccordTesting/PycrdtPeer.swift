import AccordCRDT
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pycrdt (Yrs) process holding named replicas, driven over JSON lines: the reference
/// engine for differential tests. Wraps `scripts/pycrdt_peer.py` (its docstring is the
/// protocol); the interpreter is `$ACCORD_PYTHON`, the venv that `scripts/install-deps.sh`
/// creates.
///
/// ```swift
/// let peer = try PycrdtPeer()
/// try peer.newDoc("A", clientID: 7)
/// let update = try peer.perform(.textInsert(EditTarget(root: "t", rootKind: .text), index: 0, text: "hi", attributes: nil), on: "A")
/// try accordDoc.applyUpdate(update)
/// ```
///
/// Not thread-safe: one owner sends a request and reads its reply.
public final class PycrdtPeer {
    /// A peer that could not start, died, or answered `ok: false`.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// `scripts/pycrdt_peer.py` of this package, found from this source file's path.
    public static var defaultScript: URL {
        // This file is Sources/AccordTesting/PycrdtPeer.swift inside the package.
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/pycrdt_peer.py")
    }

    // A live peer has a process and its pipes; a replayed one has the exchanges of a
    // recorded run instead (`init(replaying:)`).
    private let process: Process?
    private let input: FileHandle?
    private let output: FileHandle?
    private let replay: PeerReplay?
    private var buffer: [UInt8] = []
    private var closed = false

    /// While true, every exchange is kept in ``exchanges`` (to write a transcript that
    /// ``init(replaying:)`` plays back).
    public var recordsExchanges = false
    /// The exchanges since ``recordsExchanges`` was set.
    public private(set) var exchanges: [PeerExchange] = []
    /// A replayed peer was asked every exchange it recorded (a live peer: true).
    public var replayIsFinished: Bool { replay?.isFinished ?? true }

    /// A peer that answers from a recorded run of another engine (a transcript made by
    /// a live peer with ``recordsExchanges``): each request must be the one recorded
    /// next, and gets the reply recorded for it. This is how tests compare against an
    /// engine that cannot be installed where they run (Yjs itself: no npm registry).
    public init(replaying exchanges: [PeerExchange]) {
        process = nil
        input = nil
        output = nil
        replay = PeerReplay(exchanges)
    }

    /// Starts the peer.
    /// - Parameters:
    ///   - python: the interpreter; `$ACCORD_PYTHON` when nil.
    ///   - script: the peer script; ``defaultScript`` when nil.
    ///   - arguments: put before the script (`/usr/bin/env` with `["node"]` runs a
    ///     JavaScript peer speaking the same protocol, scripts/yjs_peer.mjs).
    /// - Throws: ``Failure`` with an explanation when the interpreter is not configured or
    ///   missing, the script is missing, or the process does not answer.
    public init(python: String? = nil, script: URL? = nil, arguments: [String] = []) throws {
        let environment = ProcessInfo.processInfo.environment
        guard let python = python ?? environment["ACCORD_PYTHON"], !python.isEmpty else {
            throw Failure("ACCORD_PYTHON is not set: differential tests need the pycrdt venv. Run `make test` "
                + "(scripts/test.sh sets it), or `bash scripts/install-deps.sh` and export ACCORD_PYTHON=$PWD/.venv/bin/python")
        }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure("ACCORD_PYTHON=\(python) is not an executable file; run `bash scripts/install-deps.sh`")
        }
        let script = script ?? Self.defaultScript
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw Failure("the pycrdt peer script is missing at \(script.path)")
        }
        // A write to a peer that died must fail with EPIPE, not kill the test process.
        signal(SIGPIPE, SIG_IGN)

        let stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        let process = Process()
        self.process = process
        replay = nil
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments + [script.path]
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.standardError
        input = stdinPipe.fileHandleForWriting
        output = stdoutPipe.fileHandleForReading
        do {
            try process.run()
        } catch {
            throw Failure("cannot start \(python) \(script.path): \(error)")
        }
        // Fail now, with the reason, if pycrdt cannot be imported.
        do {
            _ = try request(["cmd": "sv", "doc": "__probe__"], allowError: true)
        } catch {
            throw Failure("the pycrdt peer (\(python) \(script.path)) did not start: \(error). "
                + "Is pycrdt installed in that venv? Run `bash scripts/install-deps.sh`")
        }
    }

    deinit { close() }

    /// Asks the peer to quit and waits for it.
    public func close() {
        guard !closed else { return }
        closed = true
        if replay == nil { try? send(#"{"cmd":"quit"}"#) }
        try? input?.close()
        process?.waitUntilExit()
    }

    // MARK: Protocol

    /// Sends one request and returns the reply object.
    /// - Throws: ``Failure`` when the reply has `ok: false` (unless `allowError`) or the
    ///   peer died.
    @discardableResult
    public func request(_ fields: OrderedObject, allowError: Bool = false) throws -> OrderedObject {
        guard !closed || fields["cmd"] == "quit" else { throw Failure("the peer is closed") }
        var text = ""
        Self.writeRequestJSON(.object(fields), to: &text)
        let line: String
        if let replay {
            line = try replay.answer(text)
        } else {
            try send(text)
            line = try readLine()
        }
        if recordsExchanges { exchanges.append(PeerExchange(request: text, reply: line)) }
        guard case .object(let reply) = try AnyValue(jsonText: line) else {
            throw Failure("peer reply is not an object: \(line)")
        }
        if reply["ok"] != .bool(true), !allowError {
            throw Failure("peer refused \(AnyValue.object(fields).jsonText.prefix(300)): \(reply["error"]?.stringValue ?? line)")
        }
        return reply
    }

    private func send(_ text: String) throws {
        guard let input, !closed || text == #"{"cmd":"quit"}"# else { throw Failure("the peer is closed") }
        do {
            try input.write(contentsOf: Data((text + "\n").utf8))
        } catch {
            throw Failure("cannot write to the peer (it exited with status \(exitStatus)): \(error)")
        }
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard let output else { throw Failure("a replayed peer has no output") }
            let data = output.availableData
            if data.isEmpty { throw Failure("the peer closed its output (exit status \(exitStatus))") }
            buffer.append(contentsOf: data)
        }
    }

    private var exitStatus: String {
        guard let process else { return "replayed" }
        return process.isRunning ? "still running" : String(process.terminationStatus)
    }

    // MARK: Replicas

    /// Creates (or replaces) replica `doc` with client ID `clientID`.
    public func newDoc(_ doc: String, clientID: ClientID) throws {
        try request(["cmd": "new", "doc": .string(doc), "client": .int(Int64(clientID))])
    }

    /// Forgets replica `doc`.
    public func dropDoc(_ doc: String) throws {
        try request(["cmd": "drop", "doc": .string(doc)])
    }

    /// Applies update v1 bytes to `doc`.
    public func applyUpdate(_ update: [UInt8], to doc: String) throws {
        try request(["cmd": "apply", "doc": .string(doc), "update": .string(Hex.encode(update))])
    }

    /// `doc`'s state as update v1, or what a holder of `stateVector` lacks.
    public func encodeStateAsUpdate(_ doc: String, from stateVector: [UInt8]? = nil) throws -> [UInt8] {
        let reply = try request(["cmd": "update", "doc": .string(doc), "sv": stateVector.map { .string(Hex.encode($0)) } ?? .null])
        return Hex.decode(reply["update"]?.stringValue ?? "")
    }

    /// `doc`'s state vector as bytes (Yrs writes clients in hash order).
    public func encodeStateVector(_ doc: String) throws -> [UInt8] {
        Hex.decode(try request(["cmd": "sv", "doc": .string(doc)])["sv"]?.stringValue ?? "")
    }

    /// `doc`'s state vector.
    public func stateVector(_ doc: String) throws -> StateVector {
        try StateVector.decode(encodeStateVector(doc))
    }

    /// The JSON view of `doc`'s roots: a text as `{"string": s, "delta": [[insert,
    /// attributes or null], ...]}`, maps and arrays as JSON (floats that are integral
    /// print as integers, bytes as `{"$bytes": hex}`).
    public func json(_ doc: String, schema: DocumentSchema) throws -> AnyValue {
        var roots = OrderedObject()
        for root in schema.roots { roots[root.name] = .string(root.kind.rawValue) }
        return try request(["cmd": "json", "doc": .string(doc), "roots": .object(roots)])["json"] ?? .null
    }

    /// Performs `operation` on `doc` in one transaction; returns the update it emitted
    /// (`00 00` when it changed nothing).
    @discardableResult
    public func perform(_ operation: EditOperation, on doc: String) throws -> [UInt8] {
        let target = operation.target
        var r: OrderedObject = [
            "doc": .string(doc), "root": .string(target.root), "root_kind": .string(target.rootKind.rawValue),
            "path": .array(target.path.map { segment in
                switch segment {
                case .key(let k): .string(k)
                case .index(let i): .int(Int64(i))
                }
            }),
        ]
        switch operation {
        case .textInsert(_, let index, let text, let attributes):
            r["cmd"] = "text_insert"
            r["index"] = .int(Int64(index))
            r["text"] = .string(text)
            r["attrs"] = attributes.map { Self.wire(.object($0)) } ?? .null
        case .textDelete(_, let index, let length):
            r["cmd"] = "text_delete"
            r["index"] = .int(Int64(index))
            r["length"] = .int(Int64(length))
        case .textFormat(_, let index, let length, let attributes):
            r["cmd"] = "text_format"
            r["index"] = .int(Int64(index))
            r["length"] = .int(Int64(length))
            r["attrs"] = Self.wire(.object(attributes))
        case .mapSet(_, let key, let value):
            r["cmd"] = "map_set"
            r["key"] = .string(key)
            r["value"] = Self.wire(value)
        case .mapDelete(_, let key):
            r["cmd"] = "map_delete"
            r["key"] = .string(key)
        case .arrayInsert(_, let index, let values):
            r["cmd"] = "array_insert"
            r["index"] = .int(Int64(index))
            r["values"] = .array(values.map(Self.wire))
        case .arrayDelete(_, let index, let length):
            r["cmd"] = "array_delete"
            r["index"] = .int(Int64(index))
            r["length"] = .int(Int64(length))
        }
        return Hex.decode(try request(r)["update"]?.stringValue ?? "")
    }

    /// The peer's value encoding: nested types as `{"$type": ..., "value": ...}`, bytes
    /// as `{"$bytes": hex}`.
    static func wire(_ value: EditValue) -> AnyValue {
        switch value {
        case .plain(let v): wire(v)
        case .map(let o): .object(["$type": "map", "value": wire(.object(o))])
        case .array(let a): .object(["$type": "array", "value": .array(a.map(wire))])
        case .text(let s): .object(["$type": "text", "value": .string(s)])
        }
    }

    static func wire(_ value: AnyValue) -> AnyValue { DocumentSchema.portable(value) }

    /// JSON for Python: like ``AnyValue/jsonText``, except that doubles keep an exponent or
    /// fraction ("2.5e+20"), so that Python reads them as floats and not as integers that
    /// pycrdt cannot convert past 64 bits.
    static func writeRequestJSON(_ value: AnyValue, to out: inout String) {
        switch value {
        case .double(let d) where d.isFinite: out += d.description
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                writeRequestJSON(v, to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, (k, v)) in o.enumerated() {
                if i > 0 { out += "," }
                out += AnyValue.string(k).jsonText + ":"
                writeRequestJSON(v, to: &out)
            }
            out += "}"
        default: out += value.jsonText
        }
    }
}
