/* The loop of a thread that has exited, kept by CFRetain, stays a valid
 * object: Stop and WakeUp do nothing, it is not waiting, has no current
 * mode, still lists its modes, and a block queued on it never runs.
 * (Tests/c/CF_NOTES.md suspected a use-after-free in CF here; valgrind and
 * strace show none on this toolchain: see docs/conformance.md.) */
#include "conf.h"

static void *worker(void *arg)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef s = new_source(0, NULL, nop_perform);
    CFRunLoopAddSource(rl, s, CFSTR("worker-mode"));
    CFRelease(s);
    *(CFRunLoopRef *)arg = (CFRunLoopRef)CFRetain(rl);
    return NULL;
}

static void scenario(void)
{
    CFRunLoopRef other = NULL;
    pthread_t th = start_thread(worker, &other);
    pthread_join(th, NULL);
    T("worker exited; its loop is retained");
    CFRunLoopStop(other);
    CFRunLoopWakeUp(other);
    T("stop and wake up: no effect");
    T("is waiting: %s", yesno(CFRunLoopIsWaiting(other)));
    CFStringRef m = CFRunLoopCopyCurrentMode(other);
    T("current mode: %s", mname(m));
    if (m) CFRelease(m);
    T_all_modes("all modes", other);
    CFRunLoopPerformBlock(other, kCFRunLoopDefaultMode, ^{ T("never runs"); });
    T("perform on it: accepted, never runs");
    T("same object as the current loop: %s", yesno(other == CFRunLoopGetCurrent()));
    CFRelease(other);
    T("released");
}
CONF_MAIN(scenario)
