// swift-tools-version: 6.3
import PackageDescription

let package = Package(
    name: "runloop",
    products: [
        // librunloop.so: the engine and its C ABI (include/runloop/runloop.h).
        .library(name: "runloop", type: .dynamic, targets: ["RunLoopCore"]),
        // The Swift API over the same engine (Sources/RunLoopKit).
        .library(name: "RunLoopKit", targets: ["RunLoopKit"]),
    ],
    targets: [
        // The public C header, imported so the @c entry points use its types.
        .systemLibrary(name: "CRunLoop", path: "include"),
        // epoll / eventfd / timerfd / atomics, header-only.
        .systemLibrary(name: "CRunLoopShims", path: "Sources/CRunLoopShims"),
        .target(
            name: "RunLoopCore",
            dependencies: ["CRunLoop", "CRunLoopShims"],
            path: "Sources/RunLoopCore"
        ),
        .target(
            name: "RunLoopKit",
            dependencies: ["RunLoopCore", "CRunLoop", "CRunLoopShims"],
            path: "Sources/RunLoopKit",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The README's Swift patterns, run by RunLoopKitTests.
        .target(
            name: "RunLoopKitExamples",
            dependencies: ["RunLoopKit"],
            path: "examples/swift"
        ),
        // A program whose main thread runs Loop.main (swift test's main
        // thread is not ours): MainQueueTests runs it.
        .executableTarget(
            name: "MainQueueProbe",
            dependencies: ["RunLoopKit"],
            path: "Tests/MainQueueProbe"
        ),
        // Thread and trace-file helpers shared by the two test targets.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "RunLoopKitTests",
            dependencies: ["RunLoopKit", "RunLoopKitExamples", "MainQueueProbe", "TestSupport"],
            path: "Tests/RunLoopKitTests"
        ),
        .testTarget(
            name: "RunLoopCoreTests",
            dependencies: ["RunLoopCore", "TestSupport"],
            path: "Tests/RunLoopCoreTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
