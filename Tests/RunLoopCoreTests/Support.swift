import Foundation
@testable import RunLoopCore
import TestSupport

/// The engine's timer (Foundation, imported too, has one of the same name).
typealias Timer = RunLoopCore.Timer

let activityNames: [UInt: String] = [
    Activity.entry: "Entry", Activity.beforeTimers: "BeforeTimers", Activity.beforeSources: "BeforeSources",
    Activity.beforeWaiting: "BeforeWaiting", Activity.afterWaiting: "AfterWaiting", Activity.exit: "Exit",
]

let resultNames: [RunResult: String] = [
    .finished: "Finished", .stopped: "Stopped", .timedOut: "TimedOut", .handledSource: "HandledSource",
]

/// Engine objects, registered in the handle table as the C API does.
func registered<T: Object>(_ object: T) -> T {
    HandleTable.shared.register(object)
    return object
}

func makeTimer(in seconds: Double, interval: Double = 0, _ fire: @escaping (Timer) -> Void) -> Timer {
    registered(Timer(fireDate: Clock.absoluteNow() + seconds, interval: interval, order: 0,
                         callout: .closure(fire)))
}

func makeObserver(_ activities: UInt = Activity.all, repeats: Bool = true, order: Int = 0,
                  _ callout: @escaping (Observer, UInt) -> Void) -> Observer {
    registered(Observer(activities: activities, repeats: repeats, order: order, callout: callout,
                        releaseInfo: nil, cContext: nil))
}

func makeSource(order: Int = 0, schedule: ((Loop, ModeName) -> Void)? = nil, cancel: ((Loop, ModeName) -> Void)? = nil,
                release: (() -> Void)? = nil, _ perform: @escaping () -> Void) -> Source {
    registered(Source(order: order, callbacks: SourceCallbacks(schedule: schedule, cancel: cancel, perform: perform,
                                                               release: release, describe: nil)))
}

func mode(_ name: String) -> ModeName { ModeName.intern(name)! }
