import RunLoopKit

/// The articles' scroll-view timer: a timer added to the default mode
/// stops while the loop runs another mode ("tracking", as while a user
/// scrolls); added to the common modes, it keeps firing in every mode
/// marked common.
///
/// Prints `default-only ticks in kCFRunLoopDefaultMode`, `common ticks in
/// kCFRunLoopDefaultMode`, then, while tracking, only `common ticks in
/// tracking`.  Call it on a thread whose loop is idle.
public func commonModeTimerExample(_ output: @escaping ExampleOutput = { print($0) }) throws {
    let loop = Loop.current
    let tracking: Loop.Mode = "tracking"
    loop.addCommonMode(tracking)

    let handler: @Sendable (String) -> LoopTimer.Handler = { name in
        { timer in
            output("\(name) ticks in \(Loop.current.currentMode?.name ?? "-")")
            Loop.current.stop()          // one tick per run is enough here
        }
    }
    let plain = LoopTimer(after: .milliseconds(10), interval: .milliseconds(10), handler("default-only"))
    let common = LoopTimer(after: .milliseconds(15), interval: .milliseconds(10), handler("common"))
    try loop.add(plain, to: .default)
    try loop.add(common, to: .common)   // default and tracking, now and later

    loop.run(in: .default, for: .seconds(1))    // the first due timer stops the run
    loop.run(in: .default, for: .seconds(1))
    output("switch to tracking")
    loop.run(in: tracking, for: .seconds(1))    // only `common` is in tracking
    plain.invalidate()
    common.invalidate()
}
