/* Automatic re-enabling of CFSocket callbacks (one end of a socketpair,
 * kept readable and writable):
 *   - the read callback with default flags fires again while readable;
 *   - without kCFSocketAutomaticallyReenableReadCallBack it fires once,
 *     until CFSocketEnableCallBacks;
 *   - CFSocketDisableCallBacks keeps an enabled type quiet;
 *   - the write callback is one-shot by default and repeats with
 *     kCFSocketAutomaticallyReenableWriteCallBack. */
#include "conf_socket.h"

static int g_reads, g_writes, g_stop_at_reads, g_disable_at_reads, g_stop_at_writes;

static void cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    if (type == kCFSocketReadCallBack) {
        g_reads++;
        T("read callback %d (address %s, data %s)", g_reads, address ? "set" : "NULL", data ? "set" : "NULL");
        if (g_reads == g_disable_at_reads) {
            T("disabling the read callback in its callout");
            CFSocketDisableCallBacks(s, kCFSocketReadCallBack);
            CFRunLoopStop(CFRunLoopGetCurrent());
        }
        if (g_reads == g_stop_at_reads) CFRunLoopStop(CFRunLoopGetCurrent());
    } else if (type == kCFSocketWriteCallBack) {
        g_writes++;
        T("write callback %d", g_writes);
        if (g_writes == g_stop_at_writes) CFRunLoopStop(CFRunLoopGetCurrent());
    } else {
        T("unexpected type %lu", (unsigned long)type);
    }
}

static void scenario(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK(write(sv[1], "x", 1) == 1);  /* readable from now on (nobody reads) */

    CFSocketRef r = CFSocketCreateWithNative(kCFAllocatorDefault, sv[0], kCFSocketReadCallBack, cb, NULL);
    T("read socket flags 0x%lx", (unsigned long)CFSocketGetSocketFlags(r));
    CFSocketSetSocketFlags(r, kCFSocketCloseOnInvalidate);
    T("flags now 0x%lx (no automatic re-enable)", (unsigned long)CFSocketGetSocketFlags(r));
    add_socket(r, 0);
    T("run: %s", run(SOCK_MODE, 10.0, TRUE));
    T("run: %s", run(SOCK_MODE, 0.2, TRUE));
    CFSocketEnableCallBacks(r, kCFSocketReadCallBack);
    T("enabled, run: %s", run(SOCK_MODE, 10.0, TRUE));
    T("run: %s", run(SOCK_MODE, 0.2, TRUE));

    CFSocketSetSocketFlags(r, kCFSocketAutomaticallyReenableReadCallBack | kCFSocketCloseOnInvalidate);
    T("flags now 0x%lx", (unsigned long)CFSocketGetSocketFlags(r));
    g_disable_at_reads = g_reads + 3;
    CFSocketEnableCallBacks(r, kCFSocketReadCallBack);
    T("enabled, run: %s", run(SOCK_MODE, 10.0, FALSE));
    T("disabled, run: %s", run(SOCK_MODE, 0.2, TRUE));
    g_stop_at_reads = g_reads + 2;
    CFSocketEnableCallBacks(r, kCFSocketReadCallBack);
    T("enabled, run: %s", run(SOCK_MODE, 10.0, FALSE));
    drop_socket(r);
    close(sv[1]);

    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CFSocketRef w = CFSocketCreateWithNative(kCFAllocatorDefault, sv[0], kCFSocketWriteCallBack, cb, NULL);
    T("write socket flags 0x%lx", (unsigned long)CFSocketGetSocketFlags(w));
    add_socket(w, 0);
    T("run: %s", run(SOCK_MODE, 10.0, TRUE));
    T("run: %s", run(SOCK_MODE, 0.2, TRUE));
    CFSocketSetSocketFlags(w, kCFSocketAutomaticallyReenableWriteCallBack | kCFSocketCloseOnInvalidate);
    CFSocketEnableCallBacks(w, kCFSocketWriteCallBack);
    g_stop_at_writes = g_writes + 3;
    T("re-enabling, run: %s", run(SOCK_MODE, 10.0, FALSE));
    drop_socket(w);
    close(sv[1]);
}
CONF_MAIN(scenario)
