// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "runloop",
    products: [
        // librunloop.so: the engine and its C ABI (include/runloop/runloop.h).
        .library(name: "runloop", type: .dynamic, targets: ["RunLoopCore"]),
    ],
    targets: [
        // The public C header, imported so the @c entry points use its types.
        .systemLibrary(name: "CRunLoop", path: "include"),
        // epoll / eventfd / timerfd / atomics, header-only.
        .systemLibrary(name: "CRunLoopShims", path: "Sources/CRunLoopShims"),
        .target(
            name: "RunLoopCore",
            dependencies: ["CRunLoop", "CRunLoopShims"],
            path: "Sources/RunLoopCore",
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
        ),
        .testTarget(
            name: "RunLoopCoreTests",
            dependencies: ["RunLoopCore"],
            path: "Tests/RunLoopCoreTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
