import AccordTOML
import Testing

/// Valid corners of TOML 1.0, grouped like toml-test's valid categories (written here
/// from the spec text): each parses, and agrees with tomllib value by value.
@Suite struct TOMLValidTests {
    static let documents: [String] = [
        // keys
        "bare_key-1 = 1\n\"quoted key\" = 2\n'literal \"key\"' = 3\n\"\" = 4\n1234 = 5\n",
        "a . b . 'c' = 1\na.\"b.c\" = 2\n",
        "site.\"google.com\" = true\n3.14159 = \"pi\"\n",
        "\"é\" = 1\n\"e\\u0301\" = 2\n",
        "apple.type = \"fruit\"\norange.type = \"fruit\"\napple.skin = \"thin\"\n",
        // strings
        "s = \"\\b\\t\\n\\f\\r\\\"\\\\\\u00E9\\U0001F600\"\n",
        "s = \"\"\"\nRoses are red\n  Violets are blue\"\"\"\n",
        "s = \"\"\"\\\n   The quick \\\n\n   brown fox.\\\n   \"\"\"\n",
        "s = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"\nt = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"\n",
        "s = '''I [dw]on't need \\d{2} apples'''\nt = ''''That,' she said, 'is still pointless.''''\nu = '''\nThe first newline is\ntrimmed.\n'''\n",
        "s = 'C:\\Users\\nodejs\\templates'\nt = '<\\i\\c*\\s*>'\n",
        "s = \"tab\there\"\nt = '''tab\there'''\n",
        "s = \"\"\"crlf\r\nline\"\"\"\r\n",
        "s = \"\"\"a\\ \t \r\n  b\"\"\"\n",
        // integers
        "a = +99\nb = 42\nc = 0\nd = -17\ne = 1_000\nf = 5_349_221\ng = 53_49_221\nh = 1_2_3_4_5\n",
        "a = 0xDEADBEEF\nb = 0xdeadbeef\nc = 0xdead_beef\nd = 0o01234567\ne = 0o755\nf = 0b11010110\ng = 0x0\nh = +0\ni = -0\n",
        "max = 9223372036854775807\nmin = -9223372036854775808\nhex = 0x7FFFFFFFFFFFFFFF\n",
        // floats
        "a = +1.0\nb = 3.1415\nc = -0.01\nd = 5e+22\ne = 1e06\nf = -2E-2\ng = 6.626e-34\nh = 224_617.445_991_228\n",
        "a = inf\nb = +inf\nc = -inf\nd = nan\ne = +nan\nf = -nan\ng = -0.0\nh = +0.0\ni = 1e0_1\nj = 0e0\n",
        "a = 1.7976931348623157e308\nb = 5e-324\nc = 1e400\nd = 0.1\n",
        // booleans
        "t = true\nf = false\n",
        // date-times
        "odt1 = 1979-05-27T07:32:00Z\nodt2 = 1979-05-27T00:32:00-07:00\nodt3 = 1979-05-27T00:32:00.999999-07:00\nodt4 = 1979-05-27 07:32:00Z\n",
        "ldt1 = 1979-05-27T07:32:00\nldt2 = 1979-05-27T00:32:00.999999\nldt3 = 1979-05-27t00:32:00.123456789\n",
        "ld1 = 1979-05-27\nlt1 = 07:32:00\nlt2 = 00:32:00.999999\nleap = 2024-02-29\nleap400 = 2000-02-29\n",
        "z = 1987-07-05t17:45:00z\nd = 1987-07-05 # a date then a comment\n",
        // arrays
        "a = [ 1, 2, 3 ]\nb = [ \"red\", \"yellow\", \"green\" ]\nc = [ [ 1, 2 ], [3, 4, 5] ]\nd = [ \"all\", 'strings', \"\"\"are the same\"\"\", '''type''' ]\n",
        "mixed = [ 0.1, 0.2, 0.5, 1, 2, 5 ]\ncontributors = [\n  \"Foo Bar <foo@example.com>\",\n  { name = \"Baz Qux\", email = \"bazqux@example.com\", url = \"https://example.com/bazqux\" }\n]\n",
        "a = [\n  1, # one\n  2, # two\n]\nb = []\nc = [[]]\nd = [\n\n]\n",
        // inline tables
        "name = { first = \"Tom\", last = \"Preston-Werner\" }\npoint = { x = 1, y = 2 }\nanimal = { type.name = \"pug\" }\ne = {}\n",
        "a = { b = { c = { d = 1 } }, e.f.g = [1, {h = 2}] }\n",
        // tables
        "[table-1]\nkey1 = \"some string\"\nkey2 = 123\n\n[table-2]\nkey1 = \"another string\"\nkey2 = 456\n",
        "[dog.\"tater.man\"]\ntype.name = \"pug\"\n",
        "[a.b.c]\n[ d.e.f ]\n[ g .  h  . i ]\n[ j . \"ʞ\" . 'l' ]\n",
        "[x.y.z.w]\n[x]\n",
        "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n\n[fruit.apple.texture]\nsmooth = true\n",
        "[a.b.c]\nz = 9\n[a]\nd = 1\n",
        // arrays of tables
        "[[products]]\nname = \"Hammer\"\nsku = 738594937\n\n[[products]]\n\n[[products]]\nname = \"Nail\"\ncolor = \"gray\"\n",
        "[[fruits]]\nname = \"apple\"\n[fruits.physical]\ncolor = \"red\"\n[[fruits.varieties]]\nname = \"red delicious\"\n[[fruits.varieties]]\nname = \"granny smith\"\n[[fruits]]\nname = \"banana\"\n[[fruits.varieties]]\nname = \"plantain\"\n",
        "points = [ { x = 1, y = 2, z = 3 },\n           { x = 7, y = 8, z = 9 } ]\n",
        // whitespace, comments, line endings
        "# comment\n\t a = 1 \t# trailing\r\n\n  [t]  # header comment\n  b = 2\n",
        "", "\n\n\n", "# only a comment", "a = 1", "a=1#c",
    ]

    /// A byte-order mark at the very start is skipped (editors write one); tomllib, which
    /// expects callers to strip it, refuses it, so it is checked here alone.
    @Test func byteOrderMarkAtStart() throws {
        #expect(try TOML.parse("\u{FEFF}a = 1\n")["a"] == .integer(1))
        #expect(throws: TOMLError.self) { try TOML.parse("a = 1\n\u{FEFF}b = 2\n") }
    }

    @Test func documentsMatchTomllib() throws {
        let reference = try TOMLReference.run(Self.documents)
        for (document, expected) in zip(Self.documents, reference) {
            let table: TOMLTable
            do {
                table = try TOML.parse(document)
            } catch {
                Issue.record("refused \(document.debugDescription): \(error)")
                continue
            }
            #expect("ok " + Canonical.text(table) == expected, "\(document.debugDescription)")
            #expect(try TOML.parse(TOML.encode(table)) == table, "\(document.debugDescription)")
        }
    }

    @Test func keysAreDistinctByCodePoints() throws {
        let table = try TOML.parse("\"é\" = 1\n\"e\\u0301\" = 2\n")
        #expect(table.keys.count == 2)
        #expect(table["é"] == .integer(1))
        #expect(table["e\u{301}"] == .integer(2))
    }

    @Test func dateTimesKeepTheirParts() throws {
        let table = try TOML.parse("a = 1979-05-27 00:32:00.123456789-07:30\nb = 07:32:00\nc = 2000-02-29\nd = 1979-05-27t07:32:00z\n")
        guard case .offsetDateTime(let a) = table["a"] else { Issue.record("a: \(String(describing: table["a"]))"); return }
        #expect(a.text == "1979-05-27T00:32:00.123456789-07:30")
        #expect(a.offsetMinutes == -450 && a.fraction == "123456789" && a.year == 1979 && a.second == 0)
        #expect(table["b"] == .localTime(TOMLDateTime(hour: 7, minute: 32, second: 0)))
        #expect(table["c"] == .localDate(TOMLDateTime(year: 2000, month: 2, day: 29)))
        guard case .offsetDateTime(let d) = table["d"] else { Issue.record("d"); return }
        #expect(d.text == "1979-05-27T07:32:00Z")
    }

    @Test func positionsOfTablesAndKeys() throws {
        let table = try TOML.parse("top = 1\n\n[server]\n  host = \"x\"\n  tls.cert = 'c'\n[[peer]]\nname = 'a'\n[[peer]]\n")
        #expect(table.position(of: "top") == TOMLPosition(line: 1, column: 1))
        let server = try #require(table["server"]?.tableValue)
        #expect(server.position == TOMLPosition(line: 3, column: 1))
        #expect(server.position(of: "host") == TOMLPosition(line: 4, column: 3))
        let tls = try #require(server["tls"]?.tableValue)
        #expect(tls.position == TOMLPosition(line: 5, column: 3))
        #expect(tls.position(of: "cert") == TOMLPosition(line: 5, column: 7))
        let peers = try #require(table["peer"]?.arrayValue)
        #expect(peers.count == 2)
        #expect(peers[1].tableValue?.position == TOMLPosition(line: 8, column: 1))
        #expect(table.keys == ["top", "server", "peer"])
    }

    @Test func encodeBuiltTable() throws {
        var inner = TOMLTable()
        inner.set("x y", .float(.infinity))
        inner.set("n", .float(.nan))
        var root = TOMLTable()
        root.set("s", .string("line\nbreak \"q\" \u{7F} \u{0}"))
        root.set("t", .table(inner))
        root.set("list", .array([.table(inner), .table(TOMLTable())]))
        root.set("mixed", .array([.integer(1), .table(inner), .array([])]))
        let text = TOML.encode(root)
        #expect(try TOML.parse(text) == root, "\(text)")
        #expect(text.contains("[t]\n") && text.contains("[[list]]\n"))
    }
}
