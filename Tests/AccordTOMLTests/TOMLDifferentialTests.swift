import AccordTOML
import AccordTesting
import Testing

/// Random documents parsed by AccordTOML and by Python's tomllib (one Python process for
/// all of them), compared value by value through their canonical text; then each
/// parsed table is encoded and parsed again, which must give the same table.
@Suite struct TOMLDifferentialTests {
    static let seeds = FuzzSeeds(standard: 1_000, soak: 20_000)

    @Test func randomDocumentsMatchTomllib() throws {
        let documents = Self.seeds.seeds.map { seed in
            var generator = DocumentGenerator(seed: seed)
            return generator.document()
        }
        let reference = try TOMLReference.run(documents)
        try #require(reference.count == documents.count, "tomllib answered \(reference.count) of \(documents.count)")
        var failures = 0
        for (i, document) in documents.enumerated() {
            let seed = Self.seeds.seeds[i]
            let expected = reference[i]
            let table: TOMLTable
            do {
                table = try TOML.parse(document)
            } catch {
                failures += 1
                Issue.record("seed \(seed): AccordTOML refused (\(error)), tomllib: \(expected.prefix(80))\n\(document)")
                if failures > 5 { return }
                continue
            }
            guard expected.hasPrefix("ok ") else {
                failures += 1
                Issue.record("seed \(seed): tomllib refused (\(expected)) what AccordTOML accepted\n\(document)")
                if failures > 5 { return }
                continue
            }
            let actual = Canonical.text(table)
            if actual != String(expected.dropFirst(3)) {
                failures += 1
                Issue.record("seed \(seed): values differ\nAccordTOML: \(actual)\ntomllib:    \(expected.dropFirst(3))\n\(document)")
                if failures > 5 { return }
            }
        }
    }

    @Test func randomDocumentsRoundTripThroughEncode() throws {
        for seed in Self.seeds.seeds {
            var generator = DocumentGenerator(seed: seed)
            let document = generator.document()
            let table = try TOML.parse(document)
            let encoded = TOML.encode(table)
            let again: TOMLTable
            do {
                again = try TOML.parse(encoded)
            } catch {
                Issue.record("seed \(seed): encoded document does not parse: \(error)\n\(encoded)")
                return
            }
            #expect(again == table, "seed \(seed)\n\(document)\n---\n\(encoded)")
            #expect(Canonical.text(again) == Canonical.text(table), "seed \(seed)")
            if again != table { return }
        }
    }

    /// The encoder's output is read the same way by tomllib.
    @Test func encodedDocumentsMatchTomllib() throws {
        let tables = try Self.seeds.seeds.prefix(300).map { seed in
            var generator = DocumentGenerator(seed: seed)
            return try TOML.parse(generator.document())
        }
        let reference = try TOMLReference.run(tables.map(TOML.encode))
        for (i, table) in tables.enumerated() {
            #expect(reference[i] == "ok " + Canonical.text(table), "seed \(Self.seeds.seeds[i])\n\(TOML.encode(table))")
        }
    }
}
