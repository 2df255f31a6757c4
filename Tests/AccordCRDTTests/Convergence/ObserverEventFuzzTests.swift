import AccordCRDT
import AccordTesting
import Testing

/// Observer events describe changes exactly: replaying every event a type's `observe`
/// and `observeDeep` deliver onto the previous JSON gives the new JSON, after every
/// transaction, local or remote, on replicas of ``ReplicaSimulator``.
///
/// `ACCORD_SEED=<n>` replays one seed; `ACCORD_SOAK=1` runs 300 seeds of 600 steps.
@Suite struct ObserverEventFuzzTests {
    static let seeds = FuzzSeeds(standard: 48, soak: 300)
    static var steps: Int { seeds.isSoak ? 600 : 200 }

    @Test(arguments: 0..<2)
    func eventsReplayToTheNewState(chunk: Int) throws {
        var failures = 0
        var local = 0, remote = 0
        for seed in Self.seeds.chunk(chunk, of: 2) {
            let sim = ReplicaSimulator(seed: seed)
            sim.recordsTrace = Self.seeds.isReplay
            let mirrors = try sim.docs.map { try EventMirror($0, sim.schema) }
            do {
                for step in 0..<Self.steps {
                    try sim.step()
                    for (i, m) in mirrors.enumerated() {
                        if let problem = m.problems.first { throw Failure("replica \(i): \(problem)") }
                        // Between transactions too: a change without an event shows up here.
                        if step % 10 == 9, let problem = try m.staleness() { throw Failure("replica \(i) after step \(step): \(problem)") }
                    }
                }
                try sim.quiesce()
                for (i, m) in mirrors.enumerated() {
                    if let problem = try m.problems.first ?? m.staleness() { throw Failure("replica \(i) at the end: \(problem)") }
                }
            } catch {
                failures += 1
                let full = Self.seeds.isReplay ? FuzzSeeds.writeTrace(sim.trace, name: "events-seed-\(seed)") : nil
                Issue.record("""
                    seed \(seed): \(error)
                    \(FuzzSeeds.replayHint(seed: seed, filter: "ObserverEventFuzzTests"))\(full.map { "\nfull trace: \($0)" } ?? "")
                    """)
                if failures >= 3 { break }
            }
            local += mirrors.map(\.localEvents).reduce(0, +)
            remote += mirrors.map(\.remoteEvents).reduce(0, +)
        }
        // Both paths must have been exercised.
        if !Self.seeds.chunk(chunk, of: 2).isEmpty {
            #expect(local > 0 && remote > 0, "local events \(local), remote events \(remote)")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// Keeps, for one document, what its events say the roots look like:
/// - with `observeDeep` on each root: the full JSON of the map and array, and the root
///   text as rich units (attributes included);
/// - with `observe` on each root: the text as rich units, the map's keys and the array's
///   elements one level deep (nested types as placeholders).
/// Each handler compares its mirror with the document when it runs.
final class EventMirror {
    let doc: Doc
    let schema: DocumentSchema
    var deepText: [DeltaApplier.RichUnit] = []
    var shallowText: [DeltaApplier.RichUnit] = []
    var deepMap: AnyValue = .object([:])
    var shallowMap: [String: AnyValue] = [:]
    var deepArray: AnyValue = .array([])
    var shallowArray: [AnyValue] = []
    private(set) var problems: [String] = []
    private(set) var localEvents = 0
    private(set) var remoteEvents = 0
    private var subscriptions: [Subscription] = []
    let text: YText
    let map: YMap
    let array: YArray

    init(_ doc: Doc, _ schema: DocumentSchema) throws {
        self.doc = doc
        self.schema = schema
        text = try doc.getText("t")
        map = try doc.getMap("m")
        array = try doc.getArray("a")
        subscriptions = [
            text.observe { [unowned self] e in
                self.handle(e) { try DeltaApplier.apply(textDelta: e.delta, to: &self.shallowText) }
                self.compare("observe(t)", self.shallowText) { try DeltaApplier.richUnits(of: self.text.delta) }
            },
            text.observeDeep { [unowned self] events in
                for e in events {
                    self.handle(e) {
                        guard e.path.isEmpty else { throw DeltaApplier.Failure("deep text event with path \(e.path)") }
                        try DeltaApplier.apply(textDelta: e.delta, to: &self.deepText)
                    }
                }
                self.compare("observeDeep(t)", self.deepText) { try DeltaApplier.richUnits(of: self.text.delta) }
            },
            map.observe { [unowned self] e in
                self.handle(e) {
                    try DeltaApplier.apply(keys: e.keys, to: &self.shallowMap) { self.map.get($0).map(Self.shallow) }
                }
                self.compare("observe(m)", self.shallowMap) { Self.shallowEntries(self.map) }
            },
            map.observeDeep { [unowned self] events in
                for e in events { self.handle(e) { try DeltaApplier.apply(e, to: &self.deepMap) } }
                self.compare("observeDeep(m)", self.deepMap) { self.map.json }
            },
            array.observe { [unowned self] e in
                self.handle(e) { try DeltaApplier.apply(arrayDelta: e.delta, to: &self.shallowArray, transform: Self.shallow) }
                self.compare("observe(a)", self.shallowArray) { self.array.elements.map(Self.shallow) }
            },
            array.observeDeep { [unowned self] events in
                for e in events { self.handle(e) { try DeltaApplier.apply(e, to: &self.deepArray) } }
                self.compare("observeDeep(a)", self.deepArray) { self.array.json }
            },
        ]
    }

    /// A plain value as itself, a nested type as a placeholder naming its kind.
    static func shallow(_ v: YValue) -> AnyValue {
        switch v {
        case .value(let x): x
        case .text: "<text>"
        case .map: "<map>"
        case .array: "<array>"
        case .xml: "<xml>"
        case .subdocument: "<doc>"
        }
    }

    static func shallowEntries(_ m: YMap) -> [String: AnyValue] {
        Dictionary(uniqueKeysWithValues: m.entries.map { ($0.key, shallow($0.value)) })
    }

    private func handle(_ e: YEvent, _ apply: () throws -> Void) {
        // Remote = applied by the simulator; local = its edits and Yjs's clean-ups.
        if e.isLocal == (e.origin == ReplicaSimulator.remoteOrigin) {
            problems.append("event with origin \(e.origin?.name ?? "nil") has isLocal \(e.isLocal)")
        }
        if e.isLocal { localEvents += 1 } else { remoteEvents += 1 }
        do { try apply() } catch { problems.append("\(error) (event delta \(e.delta.map(\.json.jsonText)), keys \(e.keys.keys.sorted()), path \(e.path))") }
    }

    private func compare<T: Equatable>(_ what: String, _ mirror: T, _ actual: () throws -> T) {
        do {
            let a = try actual()
            if mirror != a { problems.append("\(what): events give \(Self.describe(mirror)), document has \(Self.describe(a))") }
        } catch {
            problems.append("\(what): \(error)")
        }
    }

    static func describe(_ value: Any) -> String {
        switch value {
        case let units as [DeltaApplier.RichUnit]: DeltaApplier.runs(units).jsonText
        case let v as AnyValue: v.jsonText
        case let vs as [AnyValue]: AnyValue.array(vs).jsonText
        case let d as [String: AnyValue]: AnyValue.object(d).jsonText
        default: "\(value)"
        }
    }

    /// Nil when every mirror equals the document now.
    func staleness() throws -> String? {
        if try deepText != DeltaApplier.richUnits(of: text.delta) { return "observeDeep(t) mirror is stale" }
        if try shallowText != DeltaApplier.richUnits(of: text.delta) { return "observe(t) mirror is stale" }
        if deepMap != map.json { return "observeDeep(m) mirror \(deepMap.jsonText) vs \(map.json.jsonText)" }
        if shallowMap != Self.shallowEntries(map) { return "observe(m) mirror \(shallowMap) vs \(Self.shallowEntries(map))" }
        if deepArray != array.json { return "observeDeep(a) mirror \(deepArray.jsonText) vs \(array.json.jsonText)" }
        if shallowArray != array.elements.map(Self.shallow) { return "observe(a) mirror is stale" }
        return nil
    }
}
