import AccordCRDT
import AccordTOML
import Foundation

/// `accord-bench toml`: AccordTOML's parse speed on two generated 1 MB documents, with
/// Python's tomllib timed on the same files in the same run as the reference.
///
/// `models.toml` is what codegen reads: many `[models.x.fields.y]` tables of a few small
/// keys. `mixed.toml` has every value type: strings of each kind with escapes, numbers in
/// every base, dates, arrays, inline tables and arrays of tables.
struct TOMLBenchmark {
    var samples = 10
    var directory = FileManager.default.temporaryDirectory.path
    var python = ".venv/bin/python"
    var script = "scripts/toml_bench.py"
    static let targetBytes = 1_000_000

    func run() throws -> Int32 {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var accordMedians: [String: Double] = [:]
        var files: [String] = []
        for (name, text) in [("models.toml", Self.modelsDocument()), ("mixed.toml", Self.mixedDocument())] {
            let path = directory + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            files.append(path)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let (timing, table) = try Timing.measure(samples: samples) { try TOML.parse(bytes) }
            var record = BenchRecord(name: "toml_parse", trace: name, timing: timing)
            record["bytes"] = BenchRecord.int(bytes.count)
            record["mb_per_s"] = .double(Self.mbPerSecond(bytes.count, timing.median))
            record["keys"] = BenchRecord.int(table.count)
            record.emit()
            accordMedians[name] = timing.median
        }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            TraceBenchmark.log("accord-bench toml: \(python) not found; tomllib reference skipped")
            return 0
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, "--samples", String(samples)] + files
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchFailure("\(script) exited \(process.terminationStatus)") }
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            let value = try AnyValue(jsonText: String(line))
            guard let fields = value.objectValue, let file = fields["trace"]?.stringValue,
                let theirs = fields["median_ms"]?.doubleValue, let ours = accordMedians[file], ours > 0
            else { continue }
            var ratio = BenchRecord(name: "toml_parse_speedup", engine: "accord")
            ratio["trace"] = .string(file)
            ratio["times_faster_than_tomllib"] = .double((theirs / ours * 100).rounded() / 100)
            ratio.emit()
        }
        return 0
    }

    static func mbPerSecond(_ bytes: Int, _ ms: Double) -> Double {
        guard ms > 0 else { return 0 }
        return (Double(bytes) / 1e6 / (ms / 1000) * 100).rounded() / 100
    }

    /// Many models with many fields, each field a small table.
    static func modelsDocument() -> String {
        var out = "# models.toml-like benchmark document\nversion = 1\n\n"
        var m = 0
        let types = ["string", "number", "boolean", "date", "id", "stringset"]
        while out.utf8.count < targetBytes {
            out += "[models.model_\(m)]\ncollection = \"model_\(m)s\"\nsync = true\n\n"
            for f in 0..<12 {
                out += "[models.model_\(m).fields.field_\(f)]\n"
                out += "type = \"\(types[(m + f) % types.count])\"\n"
                out += "indexed = \(f % 3 == 0)\n"
                if f % 4 == 0 { out += "default = \(f * 7)\n" }
                if f % 5 == 0 { out += "max_length = 255\n" }
                out += "\n"
            }
            m += 1
        }
        return out
    }

    /// Every value type, in sections of a few dozen lines.
    static func mixedDocument() -> String {
        var out = "# mixed benchmark document\ntitle = \"mixed\"\n\n"
        var i = 0
        while out.utf8.count < targetBytes {
            out += """
                [section_\(i)]
                name = "Section \(i) with \\"escapes\\" \\t and \\u00E9 unicode é 🎉"
                path = 'C:\\Users\\accord\\section_\(i)'
                text = \"\"\"
                A multi-line string \\
                  that continues here,
                and keeps this line.\"\"\"
                raw = '''
                literal \\n stays
                '''
                int = \(i * 7919)
                hex = 0xDEAD_BEEF
                oct = 0o755
                bin = 0b1101_0101
                big = -9_223_372_036_854_775_807
                float = \(Double(i) * 3.14159 + 0.5)
                exp = 6.626e-34
                special = [inf, -inf, nan]
                flag = \(i % 2 == 0)
                odt = 1979-05-27T07:32:00.999999-07:00
                ldt = 1979-05-27T07:32:00
                ld = 1979-05-27
                lt = 07:32:00.5
                ints = [1, 2, 3, 4, 5, 6, 7, 8]
                mixed = ["a", 1, 2.5, true, 1979-05-27, { x = 1 }]
                nested = [[1, 2], [3, 4, [5, 6]]]
                point = { x = \(i), y = \(i + 1), label = "p\(i)", tags.color = "red" }
                site."example.com".enabled = true

                [[section_\(i).items]]
                id = \(i)
                name = "item"

                [[section_\(i).items]]
                id = \(i + 1)
                name = "other item"


                """
            i += 1
        }
        return out
    }
}
