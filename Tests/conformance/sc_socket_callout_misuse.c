/* Callouts that misuse their socket, as CF defines the outcome:
 *   - a data callout that invalidates its own socket: no more callouts,
 *     the source is invalid, the run returns (the mode is empty);
 *   - a read callout that runs the loop again (nested, same mode): the
 *     socket's read callback is not re-entered while it runs, another
 *     socket's callouts do run in the nested run;
 *   - a peer that resets the connection (SO_LINGER 0): the data callout
 *     gets zero-length data and the socket is invalidated after it. */
#include "conf_socket.h"

static volatile int g_done;
static int g_depth;

static void self_invalidate(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    T("self: data \"%s\", invalidating", text_of(data));
    CFSocketInvalidate(s);
    T("self: valid after %s", yesno(CFSocketIsValid(s)));
    g_done = 1;
}

static void other_cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    T("other: data \"%s\" at depth %d", text_of(data), g_depth);
    CFRunLoopStop(CFRunLoopGetCurrent());
}

static int g_fd_other;
static void nesting(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    g_depth++;
    T("nesting: read callback at depth %d", g_depth);
    if (g_depth == 1) {
        CHECK(write(g_fd_other, "ping", 4) == 4);
        T("nested run: %s", run(SOCK_MODE, 10.0, FALSE));
        char c;
        CHECK(read(CFSocketGetNative(s), &c, 1) == 1);
        g_done = 1;
    }
    g_depth--;
}

static volatile int g_reset_seen;
static void reset_cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    T("reset: data of %ld bytes, valid during the callout %s", (long)CFDataGetLength((CFDataRef)data),
      yesno(CFSocketIsValid(s)));
    g_reset_seen = 1;
}

static void scenario(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CFSocketRef s = CFSocketCreateWithNative(kCFAllocatorDefault, sv[0], kCFSocketDataCallBack, self_invalidate, NULL);
    CFRunLoopSourceRef src = CFSocketCreateRunLoopSource(kCFAllocatorDefault, s, 0);
    CFRunLoopAddSource(CFRunLoopGetCurrent(), src, SOCK_MODE);
    CHECK(write(sv[1], "bye", 3) == 3);
    g_done = 0;
    run_until(&g_done);
    T("source valid %s; run now: %s", yesno(CFRunLoopSourceIsValid(src)), run(SOCK_MODE, 0.1, TRUE));
    CFRelease(src);
    CFRelease(s);
    close(sv[1]);

    int a[2], b[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, a) == 0);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, b) == 0);
    g_fd_other = b[1];
    CFSocketRef nest = CFSocketCreateWithNative(kCFAllocatorDefault, a[0], kCFSocketReadCallBack, nesting, NULL);
    CFSocketRef other = CFSocketCreateWithNative(kCFAllocatorDefault, b[0], kCFSocketDataCallBack, other_cb, NULL);
    add_socket(nest, 0);
    add_socket(other, 0);
    CHECK(write(a[1], "x", 1) == 1);
    g_done = 0;
    run_until(&g_done);
    T("after the nested run: %s", run(SOCK_MODE, 0.2, TRUE));
    drop_socket(nest);
    drop_socket(other);
    close(a[1]);
    close(b[1]);

    CFSocketRef listener = CFSocketCreate(kCFAllocatorDefault, PF_INET, SOCK_STREAM, IPPROTO_TCP,
                                          kCFSocketNoCallBack, NULL, NULL);
    CFDataRef any = loopback(AF_INET, 0);
    CFSocketSetAddress(listener, any);
    CFRelease(any);
    CFDataRef where = CFSocketCopyAddress(listener);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(connect(c, (const struct sockaddr *)CFDataGetBytePtr(where), (socklen_t)CFDataGetLength(where)) == 0);
    int conn = accept(CFSocketGetNative(listener), NULL, NULL);
    CHECK(conn >= 0);
    CFSocketRef server = CFSocketCreateWithNative(kCFAllocatorDefault, conn, kCFSocketDataCallBack, reset_cb, NULL);
    add_socket(server, 0);
    struct linger lg = { 1, 0 };
    CHECK(setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
    close(c);  /* RST */
    run_until(&g_reset_seen);
    T("reset: valid after %s", yesno(CFSocketIsValid(server)));
    CFRelease(server);
    drop_socket(listener);
    CFRelease(where);
}
CONF_MAIN(scenario)
