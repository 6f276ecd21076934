// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "IdeaBox",
    products: [
        .executable(name: "ideabox", targets: ["ideabox"]),
        .executable(name: "ideabox-full", targets: ["ideabox-full"]),
        .executable(name: "ideabox-bench", targets: ["ideabox-bench"]),
    ],
    traits: [
        .default(enabledTraits: ["FullBeside"]),
        .trait(
            name: "FullBeside",
            description: """
                Builds ideabox-full whenever ideabox is built, so `swift run ideabox` can hand it the \
                commands it does not run itself. It also links ideabox-full's libraries into ideabox \
                (SwiftPM links an executable's library dependencies into its dependents), so the \
                release build for installing turns it off (naming its own traits: --traits StaticExecutable).
                """),
        .trait(
            name: "StaticExecutable",
            description: """
                Links a release build of ideabox as one static executable (the install command's build).
                """),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        // Without its default traits: swift-configuration is not needed and takes minutes to build.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        // Already in the graph through the packages above; named so that the modules the
        // server and its stores import are declared for them.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The config file (issue 39); only the full app reads it, so the static binary stays without it.
    ],
    targets: [
        // What every layer stands on, ideas or not: timestamps, clocks, ids, the JSON and byte
        // writers, owner-only files, locks, limits, descriptors and the seeded generator.
        .target(name: "IdeaBoxFoundation", dependencies: ["ChildProcess"]),
        // The idea: its fields and rules, the samples, the sync order and the conflict rule's
        // input and output. Nothing of the remote depends on it.
        .target(name: "IdeaModel", dependencies: ["IdeaBoxFoundation"]),
        .target(
            name: "IdeaStore",
            dependencies: ["CSQLiteOptions", "IdeaBoxFoundation", "IdeaModel", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // sqlite3_db_config, which is variadic and so out of Swift's reach.
        .target(name: "CSQLiteOptions", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "IdeaSync", dependencies: ["IdeaBoxFoundation", "IdeaModel", "IdeaStore", "CloudKitModel", "AccountEncryption"]),
        // No pkgConfig: ncursesw.pc adds -D flags SwiftPM refuses; the module map links it.
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncursesw5-dev"])]),
        // The remote, from the device's side down: what every remote is (CloudKitModel), the
        // wire format of CloudKit Web Services (CloudWebServices), the HTTP client of `ideabox
        // serve` (CloudHTTPClient, the only device-side target that links NIO), the stores a
        // server keeps its accounts in (ServerStore's protocols, SQLiteRecordStore,
        // PostgresRecordStore), the embedded remote with each device's simulated network
        // (EmbeddedRemote), and the server. All of them stand on IdeaBoxFoundation alone.
        .target(name: "CloudKitModel", dependencies: ["IdeaBoxFoundation", .product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "CloudWebServices",
            dependencies: ["CloudKitModel", "IdeaBoxFoundation"]
        ),
        // async-http-client: Foundation's URLSession on Linux spent more CPU on its dispatch
        // sources than the sync itself (BENCHMARKS.md, "Over HTTP").
        .target(
            name: "CloudHTTPClient",
            dependencies: [
                "CloudKitModel", "CloudWebServices", "IdeaBoxFoundation",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "ServerStore",
            dependencies: [
                "CloudKitModel", "IdeaBoxFoundation", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "SQLiteRecordStore",
            dependencies: ["CloudKitModel", "CSQLiteOptions", "ServerStore", "IdeaBoxFoundation", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Only `serve` (and the contract tests) need PostgreSQL: postgres-nio and its TLS take
        // minutes to build, so only the server's executable depends on this one.
        .target(
            name: "PostgresRecordStore",
            dependencies: [
                "CloudKitModel", "ServerStore", "IdeaBoxFoundation",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "EmbeddedRemote",
            dependencies: ["CloudKitModel", "IdeaBoxFoundation", "ServerStore", "SQLiteRecordStore", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "CloudServer",
            dependencies: [
                "CloudKitModel", "ServerStore", "CloudWebServices", "IdeaBoxFoundation", "CHeap",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // malloc_trim(0) for the server's memory after a burst (Swift's Glibc module does not declare it).
        .target(name: "CHeap"),
        // syncfs(2) for the library's batched writes (glibc declares it only under _GNU_SOURCE).
        .target(name: "CFileSystem"),
        .target(
            name: "LibrarySync",
            dependencies: ["CFileSystem", "CloudKitModel", "IdeaBoxFoundation", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // End-to-end encryption on the device (issue 38): the account's keys and their envelope on
        // the remote, records and assets sealed and opened, and the sealed view of any remote.
        // Knows no idea, links no NIO: only the remote's model and swift-crypto.
        .target(
            name: "AccountEncryption",
            dependencies: [
                "CloudKitModel", "IdeaBoxFoundation", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(name: "IdeaBoxViewModels", dependencies: ["IdeaBoxFoundation", "IdeaModel", "IdeaStore", "IdeaSync"]),
        // The config file: key bindings, colours, sort, times, mouse, editor, read by our own TOML parser.
        .target(
            name: "IdeaBoxConfig",
            dependencies: ["IdeaModel", "IdeaBoxViewModels", "IdeaBoxTUI"]
        ),
        // The full-screen app's async-signal-safe exit on SIGINT, SIGTERM and SIGHUP.
        .target(name: "CTerminalExit"),
        .target(name: "IdeaBoxTUI", dependencies: ["CNcurses", "CTerminalExit", "IdeaBoxFoundation", "IdeaModel", "IdeaBoxViewModels"]),
        // The commands that need only the database, shared by both binaries.
        .target(
            name: "IdeaBoxCommandLine",
            dependencies: ["IdeaBoxFoundation", "IdeaModel", "IdeaStore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            plugins: ["BuildCommit"]
        ),
        // Starting a program (posix_spawn, files for its output): the tests' one spawner and the benchmarks'.
        .target(name: "ChildProcess"),
        // Empty ICU data for both binaries, which format nothing through ICU: 34 MB less in each
        // (BENCHMARKS.md, "Installed size").
        .target(name: "CEmptyICUData"),
        // `ideabox --version` names the commit it was built from: git, read before each build.
        .plugin(name: "BuildCommit", capability: .buildTool()),
        // `ideabox` runs the local commands and hands every other to `ideabox-full`: built
        // without the FullBeside trait it holds no NIO, Hummingbird, postgres-nio or ncurses,
        // so it starts in a few milliseconds.
        .executableTarget(
            name: "ideabox",
            dependencies: [
                .target(name: "ideabox-full", condition: .when(traits: ["FullBeside"])), "IdeaBoxCommandLine", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "CEmptyICUData",
            ],
            // Built to install (trait StaticExecutable), it is one static executable, SQLite and
            // the C++ runtime included: no loader, no shared library to map or bind, about a third of
            // a command's time (BENCHMARKS.md, "Against taskwarrior"). It reads no passwd or hosts
            // entry, so it needs nothing of glibc's NSS, which static glibc loads at run time.
            linkerSettings: [
                .unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release, traits: ["StaticExecutable"])),
            ]
        ),
        .executableTarget(
            name: "ideabox-full",
            dependencies: [
                "IdeaBoxCommandLine", "IdeaBoxFoundation", "IdeaModel", "IdeaStore", "IdeaSync", "LibrarySync", "CloudKitModel", "CloudHTTPClient",
                "ServerStore", "CloudWebServices", "EmbeddedRemote", "SQLiteRecordStore", "CloudServer", "PostgresRecordStore", "IdeaBoxViewModels", "IdeaBoxTUI",
                "AccountEncryption", "IdeaBoxConfig", "ChildProcess",
                .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log"),
                "CEmptyICUData",
            ]
        ),
        // The push benchmark's listening devices as nothing but their wire: the app's long poll
        // and fetches through its own client, thousands to an event loop, so that the benchmark
        // measures the server, not ten thousand app stacks beside it. The benchmark's alone: it
        // links NIO, which the device side never does, and the app links none of it.
        .target(
            name: "BenchDevices",
            dependencies: [
                "CloudKitModel", "CloudHTTPClient", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .executableTarget(
            name: "ideabox-bench",
            dependencies: [
                "IdeaBoxFoundation", "IdeaModel", "IdeaStore", "IdeaSync", "LibrarySync", "CloudKitModel", "CloudHTTPClient", "EmbeddedRemote",
                "IdeaBoxViewModels", "IdeaBoxTUI", "ChildProcess", "AccountEncryption", "IdeaBoxConfig", "BenchDevices",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libFuzzer targets for the parsers (.ci/fuzz): not a product, built only by that script.
        // `Extern` declares libFuzzer's C entry point (`LLVMFuzzerRunDriver`) with a C calling convention.
        .executableTarget(
            name: "ideabox-fuzz",
            dependencies: [
                "IdeaBoxFoundation", "IdeaModel", "IdeaStore", "IdeaBoxCommandLine", "CloudKitModel", "CloudWebServices", "ServerStore",
                "SQLiteRecordStore", "CloudServer", "AccountEncryption", "IdeaBoxConfig", "IdeaBoxTUI",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: [.enableExperimentalFeature("Extern")]),
        .testTarget(name: "IdeaBoxFoundationTests", dependencies: ["IdeaBoxFoundation"]),
        .testTarget(name: "IdeaModelTests", dependencies: ["IdeaBoxFoundation", "IdeaModel"]),
        // The layers of docs/ARCHITECTURE.md, read from this file and every import line.
        .testTarget(name: "ArchitectureTests"),
        .testTarget(
            name: "IdeaStoreTests",
            dependencies: ["IdeaStore", "IdeaSync", "IdeaBoxFoundation", "IdeaModel", "DatabaseDamage", "ProcessTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // Pages of a database file overwritten on purpose, for the tests of `ideabox repair`.
        .target(name: "DatabaseDamage", dependencies: [.product(name: "GRDB", package: "GRDB.swift")], path: "Tests/DatabaseDamage"),
        .testTarget(
            name: "IdeaBoxViewModelsTests",
            dependencies: ["CloudKitModel", "IdeaBoxFoundation", "IdeaModel", "IdeaBoxViewModels", "IdeaStore", "IdeaSync", "EmbeddedRemote", "ProcessTestSupport"]),
        .testTarget(
            name: "IdeaBoxTUITests", dependencies: ["IdeaBoxTUI", "IdeaBoxViewModels", "IdeaStore", "IdeaSync", "EmbeddedRemote", "IdeaBoxFoundation", "IdeaModel"]),
        // The served remotes (SQLite and PostgreSQL) the contract and convergence suites run against.
        .target(
            name: "RemoteTestSupport",
            dependencies: [
                "CloudHTTPClient", "CloudKitModel", "CloudServer", "CloudWebServices", "ServerStore", "PostgresRecordStore", "IdeaBoxFoundation",
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/RemoteTestSupport"),
        // The remote's parts, and the contract every kind of remote keeps.
        .testTarget(
            name: "RemoteTests",
            dependencies: [
                "CloudKitModel", "ServerStore", "CloudWebServices", "EmbeddedRemote", "IdeaBoxFoundation", "PostgresRecordStore", "SQLiteRecordStore",
                "RemoteTestSupport", "ProcessTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "CloudServerTests",
            dependencies: [
                "CloudServer", "CloudHTTPClient", "CloudKitModel", "ServerStore", "CloudWebServices", "EmbeddedRemote", "SQLiteRecordStore",
                "IdeaBoxFoundation", "ProcessTestSupport", "RemoteTestSupport", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"), .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "IdeaSyncTests",
            dependencies: [
                "IdeaSync", "IdeaStore", "CloudKitModel", "ServerStore", "EmbeddedRemote", "SQLiteRecordStore", "IdeaBoxFoundation", "RemoteTestSupport",
                "CloudHTTPClient", "CloudServer", "PostgresRecordStore", "DatabaseDamage", "AccountEncryption", "IdeaModel", "LibrarySync",
                "BenchDevices", "ProcessTestSupport",
            ]),
        .testTarget(
            name: "LibrarySyncTests", dependencies: ["LibrarySync", "CloudKitModel", "CloudWebServices", "EmbeddedRemote", "IdeaBoxFoundation", "ProcessTestSupport"]),
        .testTarget(
            name: "AccountEncryptionTests",
            dependencies: ["AccountEncryption", "CloudKitModel", "EmbeddedRemote", "IdeaBoxFoundation", "RemoteTestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "IdeaBoxCommandLineTests",
            dependencies: [
                "IdeaBoxCommandLine", "IdeaBoxFoundation", "IdeaModel", "IdeaStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Finding the built `ideabox` and running `ideabox serve`, for the suites that run them; a PostgreSQL cluster of a test's own;
        // waiting (`Poll`) and the one instant every fixture starts at (`TestTime`).
        .target(name: "ProcessTestSupport", dependencies: ["ChildProcess", "IdeaBoxFoundation"], path: "Tests/ProcessTestSupport"),
        .testTarget(name: "IdeaBoxConfigTests", dependencies: ["IdeaBoxConfig", "IdeaBoxViewModels", "IdeaBoxTUI", "IdeaModel"]),
        .testTarget(name: "IdeaBoxCLITests", dependencies: ["ChildProcess", "IdeaBoxFoundation", "IdeaModel", "ProcessTestSupport", "DatabaseDamage"]),
        .testTarget(
            name: "IdeaBoxEndToEndTests",
            dependencies: [
                "ChildProcess", "CloudHTTPClient", "CloudKitModel", "IdeaBoxFoundation", "IdeaBoxViewModels", "ProcessTestSupport",
                "RemoteTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ]
)
