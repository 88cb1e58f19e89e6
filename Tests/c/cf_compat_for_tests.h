/*
 * cf_compat_for_tests.h — build the runloop behaviour tests against Apple's
 * real CoreFoundation (the toolchain's libFoundation.so).
 *
 * Included by harness.h only when RL_TEST_AGAINST_CF is defined, after
 * <CoreFoundation/CoreFoundation.h>.  Every RL name a test may use is mapped
 * to its CF twin, so one scenario source builds against both libraries.
 *
 * Not mapped (runloop-only, or not exported by CF on Linux):
 *   RLRunLoopSourceIsSignalled, RLArrayCreateWithModes,
 *   RLRunLoopPerformFunction (use perform_fn() from harness.h),
 *   RLCopyDescription (CF's returns a CFStringRef), RLGetRetainCount
 *   (CFGetRetainCount is not exported on Linux).
 * Keep copyDescription fields NULL: CF's returns CFStringRef, runloop's char*.
 */
#ifndef RL_CF_COMPAT_FOR_TESTS_H
#define RL_CF_COMPAT_FOR_TESTS_H

#ifndef RL_TEST_AGAINST_CF
#error "cf_compat_for_tests.h is only for builds against CoreFoundation"
#endif

/* Mode names: CFSTR literals under CF, plain C strings under runloop. */
#define MODE(s) CFSTR(s)

/* Types */
#define RLAbsoluteTime                 CFAbsoluteTime
#define RLAllocatorRef                 CFAllocatorRef
#define RLArrayRef                     CFArrayRef
#define RLBoolean                      Boolean
#define RLHashCode                     CFHashCode
#define RLIndex                        CFIndex
#define RLOptionFlags                  CFOptionFlags
#define RLTimeInterval                 CFTimeInterval
#define RLTypeID                       CFTypeID
#define RLTypeRef                      CFTypeRef
#define RLRunLoopActivity              CFRunLoopActivity
#define RLRunLoopMode                  CFRunLoopMode
#define RLRunLoopRef                   CFRunLoopRef
#define RLRunLoopRunResult             CFRunLoopRunResult
#define RLRunLoopSourceRef             CFRunLoopSourceRef
#define RLRunLoopSourceContext         CFRunLoopSourceContext
#define RLRunLoopSourceContext1        CFRunLoopSourceContext1
#define RLRunLoopObserverRef           CFRunLoopObserverRef
#define RLRunLoopObserverContext       CFRunLoopObserverContext
#define RLRunLoopObserverCallBack      CFRunLoopObserverCallBack
#define RLRunLoopTimerRef              CFRunLoopTimerRef
#define RLRunLoopTimerContext          CFRunLoopTimerContext
#define RLRunLoopTimerCallBack         CFRunLoopTimerCallBack

/* Constants */
#define kRLRunLoopDefaultMode          kCFRunLoopDefaultMode
#define kRLRunLoopCommonModes          kCFRunLoopCommonModes
#define kRLRunLoopRunFinished          kCFRunLoopRunFinished
#define kRLRunLoopRunStopped           kCFRunLoopRunStopped
#define kRLRunLoopRunTimedOut          kCFRunLoopRunTimedOut
#define kRLRunLoopRunHandledSource     kCFRunLoopRunHandledSource
#define kRLRunLoopEntry                kCFRunLoopEntry
#define kRLRunLoopBeforeTimers         kCFRunLoopBeforeTimers
#define kRLRunLoopBeforeSources        kCFRunLoopBeforeSources
#define kRLRunLoopBeforeWaiting        kCFRunLoopBeforeWaiting
#define kRLRunLoopAfterWaiting         kCFRunLoopAfterWaiting
#define kRLRunLoopExit                 kCFRunLoopExit
#define kRLRunLoopAllActivities        kCFRunLoopAllActivities

/* Objects, time, arrays */
#define RLRetain                       CFRetain
#define RLEqual                        CFEqual
#define RLRelease                      CFRelease
#define RLGetTypeID                    CFGetTypeID
#define RLAbsoluteTimeGetCurrent       CFAbsoluteTimeGetCurrent
#define RLArrayGetCount                CFArrayGetCount
#define RLArrayGetValueAtIndex         CFArrayGetValueAtIndex
#define RLArrayGetTypeID               CFArrayGetTypeID

/* Run loops */
#define RLRunLoopGetTypeID             CFRunLoopGetTypeID
#define RLRunLoopGetCurrent            CFRunLoopGetCurrent
#define RLRunLoopGetMain               CFRunLoopGetMain
#define RLRunLoopCopyCurrentMode       CFRunLoopCopyCurrentMode
#define RLRunLoopCopyAllModes          CFRunLoopCopyAllModes
#define RLRunLoopAddCommonMode         CFRunLoopAddCommonMode
#define RLRunLoopGetNextTimerFireDate  CFRunLoopGetNextTimerFireDate
#define RLRunLoopRun                   CFRunLoopRun
#define RLRunLoopRunInMode             CFRunLoopRunInMode
#define RLRunLoopIsWaiting             CFRunLoopIsWaiting
#define RLRunLoopWakeUp                CFRunLoopWakeUp
#define RLRunLoopStop                  CFRunLoopStop
#define RLRunLoopPerformBlock          CFRunLoopPerformBlock
#define RLRunLoopContainsSource        CFRunLoopContainsSource
#define RLRunLoopAddSource             CFRunLoopAddSource
#define RLRunLoopRemoveSource          CFRunLoopRemoveSource
#define RLRunLoopContainsObserver      CFRunLoopContainsObserver
#define RLRunLoopAddObserver           CFRunLoopAddObserver
#define RLRunLoopRemoveObserver        CFRunLoopRemoveObserver
#define RLRunLoopContainsTimer         CFRunLoopContainsTimer
#define RLRunLoopAddTimer              CFRunLoopAddTimer
#define RLRunLoopRemoveTimer           CFRunLoopRemoveTimer

/* Sources */
#define RLRunLoopSourceGetTypeID       CFRunLoopSourceGetTypeID
#define RLRunLoopSourceCreate          CFRunLoopSourceCreate
#define RLRunLoopSourceGetOrder        CFRunLoopSourceGetOrder
#define RLRunLoopSourceInvalidate      CFRunLoopSourceInvalidate
#define RLRunLoopSourceIsValid         CFRunLoopSourceIsValid
#define RLRunLoopSourceGetContext      CFRunLoopSourceGetContext
#define RLRunLoopSourceSignal          CFRunLoopSourceSignal

/* Observers */
#define RLRunLoopObserverGetTypeID     CFRunLoopObserverGetTypeID
#define RLRunLoopObserverCreate        CFRunLoopObserverCreate
#define RLRunLoopObserverCreateWithHandler CFRunLoopObserverCreateWithHandler
#define RLRunLoopObserverGetActivities CFRunLoopObserverGetActivities
#define RLRunLoopObserverDoesRepeat    CFRunLoopObserverDoesRepeat
#define RLRunLoopObserverGetOrder      CFRunLoopObserverGetOrder
#define RLRunLoopObserverInvalidate    CFRunLoopObserverInvalidate
#define RLRunLoopObserverIsValid       CFRunLoopObserverIsValid
#define RLRunLoopObserverGetContext    CFRunLoopObserverGetContext

/* Timers */
#define RLRunLoopTimerGetTypeID        CFRunLoopTimerGetTypeID
#define RLRunLoopTimerCreate           CFRunLoopTimerCreate
#define RLRunLoopTimerCreateWithHandler CFRunLoopTimerCreateWithHandler
#define RLRunLoopTimerGetNextFireDate  CFRunLoopTimerGetNextFireDate
#define RLRunLoopTimerSetNextFireDate  CFRunLoopTimerSetNextFireDate
#define RLRunLoopTimerGetInterval      CFRunLoopTimerGetInterval
#define RLRunLoopTimerDoesRepeat       CFRunLoopTimerDoesRepeat
#define RLRunLoopTimerGetOrder         CFRunLoopTimerGetOrder
#define RLRunLoopTimerInvalidate       CFRunLoopTimerInvalidate
#define RLRunLoopTimerIsValid          CFRunLoopTimerIsValid
#define RLRunLoopTimerGetContext       CFRunLoopTimerGetContext
#define RLRunLoopTimerGetTolerance     CFRunLoopTimerGetTolerance
#define RLRunLoopTimerSetTolerance     CFRunLoopTimerSetTolerance

#endif /* RL_CF_COMPAT_FOR_TESTS_H */
