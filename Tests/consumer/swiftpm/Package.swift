// swift-tools-version: 6.3
// A Swift package that uses runloop the way another project would: as a
// dependency by path, through its `runloop` library product.
// Built and run by ctest (consumer_swiftpm, Tests/consumer/check_consumer.sh).
import PackageDescription

let package = Package(
    name: "RunLoopConsumer",
    dependencies: [
        .package(name: "runloop", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "RunLoopConsumer",
            dependencies: [.product(name: "runloop", package: "runloop")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
