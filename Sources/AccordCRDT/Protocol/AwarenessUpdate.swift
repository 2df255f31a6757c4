/// An encoded awareness update: `vu(n) · (vu(clientID) · vu(clock) · vs(JSON state))*n`
/// (`design/yjs-wire-format.md` §5.3). It travels inside a y-websocket frame of type 1.
///
/// States are JSON text on the wire because y-protocols uses `JSON.stringify`; the JSON
/// text `null` means "this client has left", which is why ``Entry/state`` is optional.
public struct AwarenessUpdate: Hashable, Sendable {
    /// One client's announcement.
    public struct Entry: Hashable, Sendable {
        public var clientID: ClientID
        /// Increases with every change the client makes; receivers drop older clocks.
        /// At most ``AwarenessUpdate/maxClock``, the largest integer JavaScript peers can read.
        public var clock: UInt64
        /// The client's state, or `nil` when the client has left (JSON `null`).
        public var state: AnyValue?

        /// `.null` and `.undefined` states are stored as `nil`: JavaScript peers treat
        /// them all as "no state", and keeping one spelling avoids equality surprises.
        public init(clientID: ClientID, clock: UInt64, state: AnyValue?) {
            self.clientID = clientID
            self.clock = clock
            self.state = Self.normalized(state)
        }

        static func normalized(_ state: AnyValue?) -> AnyValue? {
            switch state {
            case .none, .some(.null), .some(.undefined): nil
            case .some(let value): value
            }
        }

        /// The JSON text written for the state, as `JSON.stringify` would.
        var jsonText: String { state?.jsonText ?? "null" }
    }

    /// 2^53 - 1: JavaScript's lib0 refuses larger varUints, so a larger clock or client
    /// id could never reach a JS peer (a relay forwarding one would break every JS
    /// client in the room) and is rejected on decode.
    public static let maxClock: UInt64 = 9_007_199_254_740_991

    public var entries: [Entry]

    public init(_ entries: [Entry] = []) { self.entries = entries }

    public func encode() -> [UInt8] {
        var w = ByteWriter()
        w.writeVarUInt(entries.count)
        for entry in entries {
            w.writeVarUInt(entry.clientID)
            w.writeVarUInt(entry.clock)
            w.writeVarString(entry.jsonText)
        }
        return w.takeBytes()
    }

    /// Decodes a whole update; every byte must belong to it. Failures, including bad
    /// JSON, invalid UTF-8 and client ids or clocks above ``maxClock``, throw ``ErrorCode/malformedMessage``.
    public static func decode(_ bytes: [UInt8]) throws(AccordError) -> AwarenessUpdate {
        var reader = ByteReader.message(bytes)
        do throws(AccordError) {
            // Each entry takes at least three bytes (client, clock, string length), which
            // bounds the count by the input size before anything is allocated.
            let count = try reader.readCount(minElementSize: 3, "awareness entry count")
            var entries: [Entry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let clientID = try reader.readVarUInt(max: maxClock, "awareness client id")
                let clock = try reader.readVarUInt(max: maxClock, "awareness clock")
                let textOffset = reader.position
                let text = try reader.readVarString()
                let state = try parseState(text, offset: textOffset)
                entries.append(Entry(clientID: ClientID(clientID), clock: UInt64(clock), state: state))
            }
            try reader.expectEnd("awareness update")
            return AwarenessUpdate(entries)
        } catch {
            throw error.asMalformedMessage()
        }
    }

    /// Parses a state's JSON text. `undefined` is refused although ``AnyValue`` accepts
    /// it elsewhere: `JSON.parse` in a JavaScript peer would throw on it.
    static func parseState(_ text: String, offset: Int) throws(AccordError) -> AnyValue? {
        let value: AnyValue
        do throws(AccordError) {
            value = try AnyValue(jsonText: text)
        } catch {
            throw AccordError(.malformedMessage, "awareness state is not JSON: \(error.message)",
                              details: ["offset": String(offset)])
        }
        if case .undefined = value {
            throw AccordError(.malformedMessage, "awareness state is not JSON: undefined",
                              details: ["offset": String(offset)])
        }
        return Entry.normalized(value)
    }
}
