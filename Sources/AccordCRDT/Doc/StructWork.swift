/// The structs of an update per client (clients ascending, structs by clock), with a
/// read cursor per client. Arrays, not dictionaries: an update names few clients.
struct StructWork {
    var clients: [ClientID] = []
    var lists: [[UpdateStruct]] = []
    var cursors: [Int] = []

    init(_ groups: [DecodedUpdate.ClientGroup]) {
        for group in groups where !group.structs.isEmpty {
            if let i = clients.firstIndex(of: group.client) {
                lists[i].append(contentsOf: group.structs)
            } else {
                clients.append(group.client)
                lists.append(group.structs)
                cursors.append(0)
            }
        }
        for i in lists.indices where !lists[i].isSortedByClock {
            lists[i].sort { $0.id.clock < $1.id.clock }
        }
        if !clients.isSorted {
            let order = clients.indices.sorted { clients[$0] < clients[$1] }
            clients = order.map { clients[$0] }
            lists = order.map { lists[$0] }
        }
    }

    func index(of client: ClientID) -> Int? { clients.firstIndex(of: client) }
    func hasMore(_ i: Int) -> Bool { cursors[i] < lists[i].count }
    mutating func take(_ i: Int) -> UpdateStruct {
        cursors[i] += 1
        return lists[i][cursors[i] - 1]
    }
}
