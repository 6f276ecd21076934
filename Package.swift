// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "IdeaBox",
    products: [
        .executable(name: "ideabox", targets: ["ideabox"]),
        .executable(name: "ideabox-bench", targets: ["ideabox-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .target(name: "IdeaBoxCore"),
        .target(
            name: "IdeaStore",
            dependencies: ["IdeaBoxCore", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // No pkgConfig: ncursesw.pc adds -D flags SwiftPM refuses; the module map links it.
        .target(name: "IdeaSync", dependencies: ["IdeaBoxCore", "IdeaStore", "CloudRemote"]),
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncursesw5-dev"])]),
        .target(name: "CloudRemote", dependencies: ["IdeaBoxCore", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(name: "IdeaBoxViewModels", dependencies: ["IdeaBoxCore", "IdeaStore", "IdeaSync"]),
        .target(name: "IdeaBoxTUI", dependencies: ["CNcurses", "IdeaBoxCore", "IdeaBoxViewModels"]),
        .executableTarget(
            name: "ideabox",
            dependencies: [
                "IdeaBoxCore", "IdeaStore", "IdeaSync", "CloudRemote", "IdeaBoxViewModels", "IdeaBoxTUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ideabox-bench",
            dependencies: [
                "IdeaBoxCore", "IdeaStore", "IdeaSync", "CloudRemote", "IdeaBoxViewModels", "IdeaBoxTUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "IdeaBoxCoreTests", dependencies: ["IdeaBoxCore"]),
        .testTarget(name: "IdeaStoreTests", dependencies: ["IdeaStore", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "IdeaBoxViewModelsTests", dependencies: ["IdeaBoxViewModels", "IdeaStore"]),
        .testTarget(name: "IdeaBoxTUITests", dependencies: ["IdeaBoxTUI", "IdeaBoxViewModels", "IdeaStore"]),
        .testTarget(name: "CloudRemoteTests", dependencies: ["CloudRemote"]),
        .testTarget(name: "IdeaSyncTests", dependencies: ["IdeaSync", "IdeaStore", "CloudRemote", "IdeaBoxCore"]),
        .testTarget(name: "IdeaBoxCLITests", dependencies: ["IdeaBoxCore"]),
        .testTarget(name: "IdeaBoxEndToEndTests", dependencies: ["IdeaBoxCore"]),
    ]
)
