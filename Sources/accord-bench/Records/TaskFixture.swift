import AccordRecords
import AccordTesting

/// The records of `accord-bench records`: a to-do model as an app would declare it,
/// filled with seeded pseudo-random tasks, so every run (and both sides of the
/// comparison, the records index and the hand-written SQLite schema) sees the same data.
struct TaskFixture {
    static let model = ModelSchema("tasks", fields: [
        FieldSchema("title", .string, indexed: true),
        FieldSchema("priority", .number, indexed: true),
        FieldSchema("done", .boolean),
        FieldSchema("category", .string),
        FieldSchema("hours", .number),
        FieldSchema("tags", .stringSet),
        FieldSchema("due", .date),
    ])

    static let categories = ["home", "work", "errands", "health", "finance", "garden", "travel", "study"]
    static let tagWords = ["urgent", "waiting", "someday", "phone", "email", "weekend", "deep", "quick", "shared", "blocked"]
    static let verbs = ["Buy", "Call", "Fix", "Write", "Plan", "Book", "Clean", "Send", "Read", "Pay"]
    static let nouns = [
        "milk", "report", "bike", "dentist", "invoice", "garage", "slides", "tickets", "plants", "taxes",
        "letter", "roof", "budget", "passport", "notes", "laptop", "fence", "gift", "lamp", "boiler",
    ]

    /// One task. Titles are "<Verb> <noun> <n>" with n below `count / 20`, so each
    /// title is held by about 20 records (an equality query with limit 20 fills).
    struct Task {
        var id: String
        var title: String
        var priority: Double
        var done: Bool
        var category: String
        var hours: Double
        var tags: [String]
        var due: String

        var values: [String: RecordValue] {
            [
                "title": .string(title), "priority": .number(priority), "done": .bool(done), "category": .string(category),
                "hours": .number(hours), "tags": .stringSet(StringSet(tags)), "due": .string(due),
            ]
        }
    }

    let count: Int

    /// The distinct title numbers: about 20 records per title.
    var titleNumbers: Int { max(1, count / (20 * Self.verbs.count * Self.nouns.count) + 1) }

    static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// Zero-padded, so id order is creation order, as it is for ULIDs.
    static func id(_ index: Int) -> String {
        let digits = String(index)
        return "t" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }

    /// Task `index` of the fixture (the same for a given index in every run).
    func task(_ index: Int) -> Task {
        var random = SplitMix64(seed: UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        let verb = Self.verbs[Int(random.next() % UInt64(Self.verbs.count))]
        let noun = Self.nouns[Int(random.next() % UInt64(Self.nouns.count))]
        let number = Int(random.next() % UInt64(titleNumbers))
        var tags: [String] = []
        for word in Self.tagWords where random.next() % 5 == 0 { tags.append(word) }
        let day = Int(random.next() % 365)
        let (month, dayOfMonth) = (day / 28 % 12 + 1, day % 28 + 1)
        let hour = Int(random.next() % 24)
        return Task(
            id: Self.id(index),
            title: "\(verb) \(noun) \(number)",
            priority: Double(random.next() % 5),
            done: random.next() % 3 == 0,
            category: Self.categories[Int(random.next() % UInt64(Self.categories.count))],
            hours: Double(random.next() % 80) / 4,
            tags: tags,
            due: "2026-\(Self.twoDigits(month))-\(Self.twoDigits(dayOfMonth))T\(Self.twoDigits(hour)):00:00.000Z")
    }
}
