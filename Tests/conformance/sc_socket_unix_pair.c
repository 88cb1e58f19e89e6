/* A Unix-domain socket pair, both ends wrapped with
 * CFSocketCreateWithNative and a data callback: messages go both ways
 * (the address argument is the peer's, a Unix address), then one end is
 * invalidated (closing its descriptor): the other end's data callback
 * gets zero-length data and is invalid afterwards.  Sending on the
 * invalidated end fails. */
#include "conf_socket.h"

static volatile int g_got;

static void cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    CFIndex n = CFDataGetLength((CFDataRef)data);
    if (n == 0)
        T("%s: zero-length data, address %s", (const char *)info, family_of(address));
    else
        T("%s: data \"%s\" from %s", (const char *)info, text_of(data), family_of(address));
    g_got = 1;
}

static void scenario(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CFSocketContext ca = { 0, (void *)"a", NULL, NULL, NULL }, cb_ctx = { 0, (void *)"b", NULL, NULL, NULL };
    CFSocketRef a = CFSocketCreateWithNative(kCFAllocatorDefault, sv[0], kCFSocketDataCallBack, cb, &ca);
    CFSocketRef b = CFSocketCreateWithNative(kCFAllocatorDefault, sv[1], kCFSocketDataCallBack, cb, &cb_ctx);
    T("native handles kept: %s", yesno(CFSocketGetNative(a) == sv[0] && CFSocketGetNative(b) == sv[1]));
    add_socket(a, 0);
    add_socket(b, 1);
    const char *msgs[] = { "one", "two", "three" };
    for (int i = 0; i < 3; i++) {
        CFDataRef d = text_data(msgs[i]);
        g_got = 0;
        T("a sends \"%s\": %ld", msgs[i], (long)CFSocketSendData(i == 1 ? b : a, NULL, d, 1.0));
        CFRelease(d);
        run_until(&g_got);
    }
    CFDataRef addr = CFSocketCopyAddress(a);
    T("a's address: %s", family_of(addr));
    if (addr) CFRelease(addr);

    CFSocketInvalidate(a);
    T("a invalid: %s, native %d", yesno(!CFSocketIsValid(a)), CFSocketGetNative(a));
    g_got = 0;
    run_until(&g_got);
    T("b valid after the end: %s", yesno(CFSocketIsValid(b)));
    CFDataRef d = text_data("late");
    T("send on invalid a: %ld", (long)CFSocketSendData(a, NULL, d, 1.0));
    CFRelease(d);
    CFRelease(a);
    drop_socket(b);
}
CONF_MAIN(scenario)
