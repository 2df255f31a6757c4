// swift-tools-version:6.0
import PackageDescription

// Settings shared by every target. Each flag links the proposal behind it.
let swiftSettings: [SwiftSetting] = [
    // SE-0335: every existential is spelled `any`, so dynamic dispatch is visible in review.
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Accord",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "AccordCRDT", targets: ["AccordCRDT"]),
        .library(name: "AccordStore", targets: ["AccordStore"]),
        .library(name: "AccordTesting", targets: ["AccordTesting"]),
        .library(name: "AccordNet", targets: ["AccordNet"]),
        .library(name: "AccordPostgres", targets: ["AccordPostgres"]),
        .library(name: "AccordServer", targets: ["AccordServer"]),
        .library(name: "AccordSync", targets: ["AccordSync"]),
        .library(name: "AccordRecords", targets: ["AccordRecords"]),
        .library(name: "AccordTOML", targets: ["AccordTOML"]),
        .library(name: "AccordDatabase", targets: ["AccordDatabase"]),
        .library(name: "Accord", targets: ["Accord"]),
        .executable(name: "accord", targets: ["accord"]),
        .executable(name: "accord-bench", targets: ["accord-bench"]),
        .library(name: "AccordCodegen", targets: ["AccordCodegen"]),
        .plugin(name: "AccordCodegenPlugin", targets: ["AccordCodegenPlugin"]),
        .plugin(name: "GenerateModels", targets: ["GenerateModels"]),
    ],
    targets: [
        // TOML 1.0 parser and encoder with positions in errors, for models.toml and the CLI.
        // Toolchain only (no Foundation): the parser works on UTF-8 bytes.
        .target(name: "AccordTOML", swiftSettings: swiftSettings),
        // Yjs-compatible CRDT engine and wire codecs. Pure Swift, no I/O, toolchain only.
        .target(name: "AccordCRDT", swiftSettings: swiftSettings),
        // C libraries from the system: Debian's -dev packages, Homebrew on macOS.
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        // zlib, for reading gzip input (`accord documents ingest` takes `.ndjson.gz`).
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // libpq, for the PostgreSQL storage adapter (`accord serve --postgres`).
        .systemLibrary(
            name: "CPostgres", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .systemLibrary(
            name: "CWebSockets", pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"]), .brew(["libwebsockets"])]
        ),
        // OpenSSL, for TLS in `accord serve`: the server runs its own TLS session per
        // connection over the raw sockets lws hands it (clients use it through lws).
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
        ),
        // SHA-256 block compression on the x86 SHA extensions, our own C (intrinsics need a
        // C compiler); AccordStore falls back to libsodium where the CPU lacks them.
        .target(name: "CAccordSHA"),
        // Durable local storage: SQLite wrapper, document store, blob store, the storage
        // adapter seam with its conformance suite, and sealing at rest.
        .target(
            name: "AccordStore", dependencies: ["AccordCRDT", "CSQLite", "CSodium", "CAccordSHA"],
            swiftSettings: swiftSettings
        ),
        // The storage adapter on PostgreSQL, for servers that share one database (a cluster).
        .target(
            name: "AccordPostgres", dependencies: ["AccordCRDT", "AccordStore", "CPostgres"],
            swiftSettings: swiftSettings
        ),
        // WebSocket client and server plus HTTP routes on the same port, over libwebsockets.
        // Each context has its own service thread, never a Swift concurrency thread.
        .target(name: "AccordNet", dependencies: ["CWebSockets", "COpenSSL"], swiftSettings: swiftSettings),
        // The sync server: rooms over the document store, auth, permissions, REST, limits.
        .target(
            name: "AccordServer", dependencies: ["AccordCRDT", "AccordStore", "AccordNet", "AccordRecords", "CSodium"],
            swiftSettings: swiftSettings
        ),
        // The client sync engine. This layer is pure state machines (per-document sync, sync
        // modes, reconnect backoff, heartbeats, network mode): events in, actions out, time
        // passed in; `AccordClient` is the actor that performs their actions over AccordNet.
        .target(name: "AccordSync", dependencies: ["AccordCRDT", "AccordStore", "AccordNet"], swiftSettings: swiftSettings),
        // Typed records inside documents: schemas, the record layout in a document, filters
        // with one exact semantics (evaluated in memory here, compiled to SQL later).
        .target(
            name: "AccordRecords", dependencies: ["AccordCRDT", "AccordStore", "AccordSync", "AccordTOML"],
            swiftSettings: swiftSettings
        ),
        // The JSON document API in Couchbase Lite's shape: databases, collections, mutable
        // documents with typed accessors, batches, listeners; each collection one CRDT document.
        .target(
            name: "AccordDatabase", dependencies: ["AccordCRDT", "AccordStore", "AccordSync", "AccordRecords"],
            swiftSettings: swiftSettings
        ),
        // The module apps import: re-exports the engine, the store and the client, and adds
        // the documents API with its `AccordDocument` handles.
        .target(
            name: "Accord", dependencies: ["AccordCRDT", "AccordStore", "AccordSync", "AccordRecords", "AccordDatabase"],
            swiftSettings: swiftSettings
        ),
        // Codegen: schema files to typed `Model` structs (Swift source text), and the folder
        // of generated files. `accord codegen` and the plugins call it; tests call it directly.
        .target(name: "AccordCodegen", dependencies: ["AccordCRDT", "AccordStore", "AccordRecords"], swiftSettings: swiftSettings),
        // Runs `accord codegen` over the target's models.toml / models.json on every build
        // (into the plugin work directory). Thin: it computes paths and runs the tool.
        .plugin(name: "AccordCodegenPlugin", capability: .buildTool(), dependencies: ["accord"]),
        // `swift package generate-models`: writes Models/Generated/ into the package, for
        // projects that commit generated code.
        .plugin(
            name: "GenerateModels",
            capability: .command(
                intent: .custom(verb: "generate-models", description: "Generate Swift models from models.toml / models.json"),
                permissions: [.writeToPackageDirectory(reason: "Writes the generated models into Models/Generated/")]),
            dependencies: ["accord"]),
        // Test support that apps can use too: seeded randomness, replica simulation.
        .target(name: "AccordTesting", dependencies: ["AccordCRDT", "AccordStore"], swiftSettings: swiftSettings),
        // Command line: `accord yjs merge|inspect`, `accord serve`, `accord token`, `accord records`.
        // Foundation is fine here (files, stdio, signals).
        .executableTarget(
            name: "accord",
            dependencies: [
                "AccordCRDT", "AccordStore", "AccordServer", "AccordRecords", "AccordTOML", "AccordCodegen", "CZlib",
                "AccordPostgres",
            ],
            swiftSettings: swiftSettings
        ),
        // Benchmarks on the editing traces in shared/traces; JSON lines like scripts/bench_reference.py.
        .executableTarget(
            name: "accord-bench",
            dependencies: [
                "AccordCRDT", "AccordStore", "AccordNet", "AccordSync", "AccordRecords", "AccordTesting", "AccordTOML",
                "AccordCodegen", "AccordDatabase", "AccordServer", "AccordPostgres",
            ],
            swiftSettings: swiftSettings
        ),
        // The parser and encoder against hand-written spec cases and, differentially, Python's tomllib.
        .testTarget(name: "AccordTOMLTests", dependencies: ["AccordTOML", "AccordTesting"], swiftSettings: swiftSettings),
        .testTarget(
            name: "AccordCRDTTests",
            dependencies: ["AccordCRDT", "AccordTesting"],
            // Read through #filePath by UndoYjsTranscriptTests, not bundled.
            exclude: ["Undo/YjsTranscripts"],
            swiftSettings: swiftSettings
        ),
        // Child process of the store crash test: appends and reports durable edits until killed.
        .executableTarget(
            name: "accord-crash-writer", dependencies: ["AccordCRDT", "AccordStore"], swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AccordStoreTests",
            dependencies: ["AccordStore", "AccordCRDT", "AccordTesting", "accord-crash-writer"],
            swiftSettings: swiftSettings
        ),
        // Against a throwaway PostgreSQL cluster that scripts/test.sh starts ($ACCORD_POSTGRES_URL).
        .testTarget(
            name: "AccordPostgresTests", dependencies: ["AccordPostgres", "AccordStore", "AccordCRDT", "AccordTesting"],
            swiftSettings: swiftSettings
        ),
        // Real sockets on 127.0.0.1, port 0.
        .testTarget(name: "AccordNetTests", dependencies: ["AccordNet", "CWebSockets", "COpenSSL", "AccordTesting"], swiftSettings: swiftSettings),
        // AccordTesting's own tools, tested on real sockets: the fault proxy between AccordNet peers.
        .testTarget(
            name: "AccordTestingTests", dependencies: ["AccordTesting", "AccordNet", "AccordCRDT"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AccordServerTests",
            dependencies: [
                "AccordServer", "AccordStore", "AccordNet", "AccordCRDT", "AccordRecords", "AccordTesting", "accord",
                "AccordPostgres",
            ],
            swiftSettings: swiftSettings
        ),
        // The sync machines driven by events and a manual clock, and wired in memory to a
        // real server `Room` and a real (in-memory) `DocumentStore`.
        .testTarget(
            name: "AccordSyncTests",
            dependencies: ["AccordSync", "AccordCRDT", "AccordStore", "AccordServer", "AccordNet", "AccordTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AccordRecordsTests", dependencies: ["AccordRecords", "AccordCRDT", "AccordStore", "AccordSync", "AccordTesting"],
            swiftSettings: swiftSettings
        ),
        // Golden output of the example schema (Generated/ is that output, compiled and used
        // against an offline client), refusals, the generated folder's rules.
        .testTarget(
            name: "AccordCodegenTests",
            dependencies: ["AccordCodegen", "AccordRecords", "AccordCRDT", "AccordStore", "AccordSync", "AccordTesting"],
            swiftSettings: swiftSettings
        ),
        // The JSON document API against real SQLite files in temporary directories.
        .testTarget(
            name: "AccordDatabaseTests",
            dependencies: ["AccordDatabase", "AccordCRDT", "AccordStore", "AccordSync", "AccordServer", "AccordTesting"],
            swiftSettings: swiftSettings
        ),
        // The facade as an app uses it, against an in-process server.
        // Child process of the client's blob upload resume test: attaches a file and
        // uploads it until SIGKILLed, or until the server holds it.
        .executableTarget(
            name: "accord-blob-uploader", dependencies: ["AccordCRDT", "AccordStore", "AccordSync"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AccordTests", dependencies: ["Accord", "AccordServer", "AccordTesting", "accord-blob-uploader"],
            swiftSettings: swiftSettings
        ),
        // Runs the built `accord` binary as a subprocess. `swift build --build-tests` and
        // `swift test` build every product, so the binary sits beside the test bundle;
        // the dependency keeps the CLI module compiled (and checked) with the tests.
        .testTarget(
            name: "AccordCLITests",
            dependencies: ["AccordCRDT", "AccordStore", "AccordServer", "AccordTesting", "AccordTOML", "accord"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
