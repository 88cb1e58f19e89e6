// Runs the main thread's loop and checks that it serves libdispatch's main
// queue: a DispatchQueue.main.async block and a @MainActor task, both sent
// from another thread, run on the main loop.  Driven by MainQueueTests.
import Dispatch
import RunLoopKit

let loop = Loop.main
let keepAlive = LoopTimer(after: .seconds(30)) { _ in }
do {
    try loop.add(keepAlive, to: .common)
} catch {
    print("could not add the keep-alive timer: \(error)")
}

DispatchQueue.global().async {
    DispatchQueue.main.async {
        print("DispatchQueue.main.async ran on the main loop: \(Loop.current.isMain && loop.currentMode == .default)")
        Task { @MainActor in
            print("@MainActor task ran on the main loop: \(Loop.current.isMain)")
            loop.stop()
        }
    }
}

let result = loop.run(in: .default, for: .seconds(10))
print("run ended: \(result)")
keepAlive.invalidate()
