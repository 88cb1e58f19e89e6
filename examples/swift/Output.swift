/// Where the examples print: `print` by default, a collector in tests.
public typealias ExampleOutput = @Sendable (String) -> Void
