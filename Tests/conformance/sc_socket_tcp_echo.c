/* TCP echo over loopback, IPv4 then IPv6: a listening CFSocket with an
 * accept callback (CFSocketSetAddress binds and listens; the new native
 * handle arrives as the data pointer, the peer's address as address), the
 * connection wrapped with CFSocketCreateWithNative and a data callback that
 * echoes with CFSocketSendData, and a client with connect + data callbacks
 * connecting in the background (timeout -1).  When the client goes away the
 * server's data callback gets zero-length data and CF invalidates the
 * socket after that callout. */
#include "conf_socket.h"

static CFSocketRef g_conn;
static volatile int g_accepted, g_connected, g_echoed, g_closed;

static void server_cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    CFIndex n = CFDataGetLength((CFDataRef)data);
    if (n == 0) {
        T("server: zero-length data from %s, valid during the callout: %s", family_of(address),
          yesno(CFSocketIsValid(s)));
        g_closed = 1;
        return;
    }
    T("server: data \"%s\" (%ld bytes) from %s", text_of(data), (long)n, family_of(address));
    T("server: echo: %ld", (long)CFSocketSendData(s, NULL, (CFDataRef)data, 1.0));
}

static void accept_cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    T_defer("listener: accept callback (type %lu) from %s", (unsigned long)type, family_of(address));
    g_conn = CFSocketCreateWithNative(kCFAllocatorDefault, *(const CFSocketNativeHandle *)data,
                                      kCFSocketDataCallBack, server_cb, NULL);
    add_socket(g_conn, 0);
    g_accepted = 1;
}

static void client_cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    if (type == kCFSocketConnectCallBack) {
        T_defer("client: connect callback, %s", data ? "error" : "no error");
        g_connected = 1;
    } else if (type == kCFSocketDataCallBack) {
        T("client: data \"%s\" from %s", text_of(data), family_of(address));
        g_echoed = 1;
    } else {
        T("client: unexpected type %lu", (unsigned long)type);
    }
}

static void echo(int family)
{
    T("--- %s", family == AF_INET6 ? "IPv6" : "IPv4");
    g_accepted = g_connected = g_echoed = g_closed = 0;
    CFSocketRef listener = CFSocketCreate(kCFAllocatorDefault, family, SOCK_STREAM, IPPROTO_TCP,
                                          kCFSocketAcceptCallBack, accept_cb, NULL);
    CHECK(listener != NULL);
    T("listener valid: %s, flags 0x%lx", yesno(CFSocketIsValid(listener)),
      (unsigned long)CFSocketGetSocketFlags(listener));
    CFDataRef any = loopback(family, 0);
    T("SetAddress: %ld", (long)CFSocketSetAddress(listener, any));
    CFRelease(any);
    CFDataRef bound = CFSocketCopyAddress(listener);
    T("bound: %s, port chosen: %s", family_of(bound), yesno(port_of(bound) != 0));
    add_socket(listener, 0);

    CFSocketRef client = CFSocketCreate(kCFAllocatorDefault, family, SOCK_STREAM, 0,
                                        kCFSocketConnectCallBack | kCFSocketDataCallBack, client_cb, NULL);
    T("client flags 0x%lx", (unsigned long)CFSocketGetSocketFlags(client));
    T("ConnectToAddress(-1): %ld", (long)CFSocketConnectToAddress(client, bound, -1));
    add_socket(client, 1);
    run_until(&g_accepted);
    run_until(&g_connected);
    T_flush_sorted();

    CFDataRef peer = CFSocketCopyPeerAddress(client);
    T("client's peer is the listener: %s", yesno(peer && port_of(peer) == port_of(bound)));
    if (peer) CFRelease(peer);
    CFDataRef hello = text_data("hello");
    T("client SendData: %ld", (long)CFSocketSendData(client, NULL, hello, 1.0));
    CFRelease(hello);
    T("echoed: %s", yesno(run_until(&g_echoed)));

    drop_socket(client);
    T("server saw the end: %s", yesno(run_until(&g_closed)));
    T("server connection valid after: %s, native %d", yesno(CFSocketIsValid(g_conn)), CFSocketGetNative(g_conn));
    CFRelease(g_conn);
    drop_socket(listener);
    CFRelease(bound);
}

static void scenario(void)
{
    echo(AF_INET);
    echo(AF_INET6);
}
CONF_MAIN(scenario)
