// swift-tools-version: 6.0
//
// A client of Instar's public products only, as an app's package would be: it depends on the root
// package by path and imports `Instar` (and, for SwiftData's checks, `InstarSwiftDataCheck`), nothing else. If it builds, the README's launch example and
// the calls below compile against the public surface (a `package` or internal name would not).
// Built by .ci/run: `swift build --package-path Tests/ClientPackage`.
import PackageDescription

let package = Package(
    name: "InstarClient",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "Instar", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "InstarClient",
            dependencies: [.product(name: "Instar", package: "Instar")]
        ),
        // SwiftData's checks on an app's sources, through their own public product.
        .executableTarget(
            name: "SwiftDataChecks",
            dependencies: [
                .product(name: "Instar", package: "Instar"), .product(name: "InstarSwiftDataCheck", package: "Instar"),
            ]
        ),
        // An app's launch: migrates a store from the folder `instar export` wrote; killed and launched
        // again by Scripts/app-launch-check (run by .ci/run).
        .executableTarget(
            name: "AppLaunch",
            dependencies: [.product(name: "Instar", package: "Instar")]
        ),
    ]
)
