import AccordTesting

/// A seeded schedule of soak steps: `operations` edits spread over the clients and
/// documents, each followed by a short pause, with faults in between. The same seed
/// gives the same steps; it does not give the same run, since threads, sockets and
/// timers interleave differently each time.
///
/// The generator keeps track of which faults are on, so it starts and ends them in
/// turn (a client pinned offline is later put online or back to automatic, a refusing
/// proxy forwards again, the server comes back). Whatever is still on at the end is
/// ended by the soak itself before it waits for convergence.
struct SoakSchedule {
    let seed: UInt64
    let clients: Int
    let documents: Int
    private(set) var steps: [SoakStep] = []

    /// One step in this many is a fault rather than an edit.
    static let faultEvery = 25
    /// While the server is down, the chance per step that it comes back.
    static let serverReturnChance = 0.04

    init(seed: UInt64, operations: Int, clients: Int, documents: Int) {
        self.seed = seed
        self.clients = clients
        self.documents = documents
        var random = SplitMix64(seed: seed)
        var state = FaultState()
        var edits = 0
        while edits < operations {
            if state.serverDown, random.chance(Self.serverReturnChance) {
                state.serverDown = false
                steps.append(.serverUp)
            } else if Int.random(in: 0..<Self.faultEvery, using: &random) == 0 {
                steps.append(nextFault(&random, &state))
            } else {
                let client = Int.random(in: 0..<clients, using: &random)
                let document = Int.random(in: 0..<documents, using: &random)
                steps.append(.edit(client: client, document: document, Self.edit(&random)))
                edits += 1
            }
            steps.append(.pause(milliseconds: Int.random(in: 0...6, using: &random)))
        }
    }

    /// Which faults the steps so far left on.
    private struct FaultState {
        var serverDown = false
        var offline: Set<Int> = []
        var refusing: Set<Int> = []
        var faulty: Set<Int> = []
    }

    private func nextFault(_ random: inout SplitMix64, _ state: inout FaultState) -> SoakStep {
        let client = Int.random(in: 0..<clients, using: &random)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<22:
            return .cut(client: client)
        case 22..<34:
            let on = !state.refusing.contains(client)
            if on { state.refusing.insert(client) } else { state.refusing.remove(client) }
            return .refuse(client: client, on)
        case 34..<56:
            if state.faulty.remove(client) != nil {
                return .messageFaults(client: client, toServer: .none, toClient: .none)
            }
            state.faulty.insert(client)
            return .messageFaults(client: client, toServer: Self.faults(&random), toClient: Self.faults(&random))
        case 56..<64:
            return .freeze(client: client)
        case 64..<78:
            guard state.offline.remove(client) != nil else {
                state.offline.insert(client)
                return .goOffline(client: client)
            }
            return random.chance(0.5) ? .goOnline(client: client) : .useAutomaticMode(client: client)
        case 78..<86:
            guard !state.serverDown else { return .cut(client: client) }
            state.serverDown = true
            return .serverDown
        default:
            // A new instance starts in automatic mode, whatever the old one was pinned to.
            state.offline.remove(client)
            return .restartClient(client: client, graceful: random.chance(0.5))
        }
    }

    /// Drops, duplicates and delays of whole messages, each at a random rate.
    private static func faults(_ random: inout SplitMix64) -> FaultProxy.MessageFaults {
        FaultProxy.MessageFaults(
            dropProbability: random.chance(0.5) ? Double.random(in: 0...0.2, using: &random) : 0,
            duplicateProbability: random.chance(0.5) ? Double.random(in: 0...0.2, using: &random) : 0,
            delay: .zero ... .milliseconds(Int.random(in: 0...30, using: &random)))
    }

    private static let letters = Array("abcdefghijklmnopqrstuvwxyz")

    private static func edit(_ random: inout SplitMix64) -> SoakEdit {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<40:
            let length = Int.random(in: 1...4, using: &random)
            let text = String((0..<length).map { _ in letters[Int.random(in: 0..<letters.count, using: &random)] })
            return .insertText(position: random.next(), text: text)
        case 40..<60:
            return .deleteText(position: random.next(), count: Int.random(in: 1...3, using: &random))
        case 60..<75:
            return .setMap(key: "k\(Int.random(in: 0..<8, using: &random))", value: Int64.random(in: 0...999, using: &random))
        case 75..<80:
            return .deleteMapKey("k\(Int.random(in: 0..<8, using: &random))")
        default:
            return .pushArray
        }
    }
}
