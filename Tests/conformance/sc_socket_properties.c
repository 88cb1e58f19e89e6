/* CFSocket objects: default flags per callback type, Set/GetSocketFlags,
 * CreateWithNative of a descriptor that already has a CFSocket (the same
 * object), one run-loop source per socket, GetContext, and what is left
 * after CFSocketInvalidate: native -1, the context cleared and its info
 * released once, the source invalid, no new source; with
 * kCFSocketCloseOnInvalidate cleared the descriptor stays open. */
#include "conf_socket.h"

static int g_releases;
static const void *ctx_retain(const void *info) { return info; }
static void ctx_release(const void *info) { g_releases++; }
static void nop_cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info) {}

static void scenario(void)
{
    static const CFOptionFlags types[] = {
        kCFSocketNoCallBack, kCFSocketReadCallBack, kCFSocketAcceptCallBack, kCFSocketDataCallBack,
        kCFSocketConnectCallBack, kCFSocketWriteCallBack,
        kCFSocketDataCallBack | kCFSocketConnectCallBack | kCFSocketWriteCallBack,
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        CFSocketRef s = CFSocketCreate(kCFAllocatorDefault, PF_INET, SOCK_STREAM, IPPROTO_TCP, types[i], nop_cb, NULL);
        T("types 0x%lx: flags 0x%lx", (unsigned long)types[i], (unsigned long)CFSocketGetSocketFlags(s));
        drop_socket(s);
    }

    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CFSocketContext ctx = { 0, (void *)"info", ctx_retain, ctx_release, NULL };
    CFSocketRef s = CFSocketCreateWithNative(kCFAllocatorDefault, sv[0], kCFSocketReadCallBack, nop_cb, &ctx);
    CFSocketRef again = CFSocketCreateWithNative(kCFAllocatorDefault, sv[0], kCFSocketDataCallBack, NULL, NULL);
    T("same descriptor, same socket: %s", yesno(s == again));
    T("flags of the first kept: 0x%lx", (unsigned long)CFSocketGetSocketFlags(again));
    CFRelease(again);
    CFSocketSetSocketFlags(s, 0);
    T("flags set to 0: 0x%lx", (unsigned long)CFSocketGetSocketFlags(s));
    CFSocketContext got;
    memset(&got, 0, sizeof got);
    CFSocketGetContext(s, &got);
    T("context: info \"%s\", release kept %s", (const char *)got.info, yesno(got.release == ctx_release));
    CFRunLoopSourceRef s1 = CFSocketCreateRunLoopSource(kCFAllocatorDefault, s, 5);
    CFRunLoopSourceRef s2 = CFSocketCreateRunLoopSource(kCFAllocatorDefault, s, 7);
    T("one source: %s, order %ld", yesno(s1 == s2), (long)CFRunLoopSourceGetOrder(s1));
    CFRunLoopAddSource(CFRunLoopGetCurrent(), s1, SOCK_MODE);
    T("releases before invalidation: %d", g_releases);
    CFSocketInvalidate(s);
    memset(&got, 0, sizeof got);
    got.version = 0;
    CFSocketGetContext(s, &got);
    T("invalid: valid %s, native %d, context info %s, releases %d", yesno(CFSocketIsValid(s)),
      CFSocketGetNative(s), got.info ? "set" : "NULL", g_releases);
    T("invalid: source valid %s, in the loop %s", yesno(CFRunLoopSourceIsValid(s1)),
      yesno(CFRunLoopContainsSource(CFRunLoopGetCurrent(), s1, SOCK_MODE)));
    T("invalid: new source %s", CFSocketCreateRunLoopSource(kCFAllocatorDefault, s, 0) ? "made" : "NULL");
    CFSocketInvalidate(s);
    T("invalidated twice: releases %d", g_releases);
    T("flags 0 (no close on invalidate): descriptor open %s", yesno(fcntl(sv[0], F_GETFD) != -1));
    CFRelease(s1);
    CFRelease(s2);
    CFRelease(s);

    CFSocketRef t = CFSocketCreateWithNative(kCFAllocatorDefault, sv[1], kCFSocketNoCallBack, NULL, NULL);
    T("no callbacks, NULL callout: %s", t ? "socket" : "NULL");
    drop_socket(t);
    errno = 0;
    int closed = fcntl(sv[1], F_GETFD) == -1 && errno == EBADF;
    T("default flags: descriptor closed by invalidation %s", yesno(closed));
    close(sv[0]);
}
CONF_MAIN(scenario)
