/* A Unix-domain listener bound to a path with CFSocketSetAddress (its
 * CopyAddress is that path), a client connecting in the background
 * (timeout -1; a Unix connect completes at once, the connect callback
 * still reports it), the accepted connection with a data callback, a
 * message, and the peer address of an unnamed client (a Unix address with
 * no path). */
#include "conf_socket.h"

static volatile int g_accepted, g_connected, g_got;
static CFSocketRef g_conn;

static void conn_cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    T("server: data \"%s\" from %s (%ld address bytes)", text_of(data), family_of(address),
      (long)(address ? CFDataGetLength(address) : -1));
    g_got = 1;
}

static void accept_cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    T_defer("listener: accepted, peer %s", family_of(address));
    g_conn = CFSocketCreateWithNative(kCFAllocatorDefault, *(const CFSocketNativeHandle *)data,
                                      kCFSocketDataCallBack, conn_cb, NULL);
    add_socket(g_conn, 0);
    g_accepted = 1;
}

static void client_cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    T_defer("client: callback type %lu, %s", (unsigned long)type, data ? "error" : "no error");
    g_connected = 1;
}

static void scenario(void)
{
    char path[108];
    snprintf(path, sizeof path, "/tmp/conf_socket_unix.%d", (int)getpid());
    unlink(path);
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    memcpy(sun.sun_path, path, strlen(path) + 1);
    CFDataRef address = data_of(&sun, sizeof sun);

    CFSocketRef listener = CFSocketCreate(kCFAllocatorDefault, PF_UNIX, SOCK_STREAM, 0, kCFSocketAcceptCallBack,
                                          accept_cb, NULL);
    T("SetAddress: %ld", (long)CFSocketSetAddress(listener, address));
    CFDataRef bound = CFSocketCopyAddress(listener);
    const struct sockaddr_un *b = bound ? (const struct sockaddr_un *)CFDataGetBytePtr(bound) : NULL;
    T("bound: %s, to the path: %s", family_of(bound), yesno(b && strcmp(b->sun_path, path) == 0));
    if (bound) CFRelease(bound);
    add_socket(listener, 0);

    CFSocketRef client = CFSocketCreate(kCFAllocatorDefault, PF_UNIX, SOCK_STREAM, 0, kCFSocketConnectCallBack,
                                        client_cb, NULL);
    T("ConnectToAddress(-1): %ld", (long)CFSocketConnectToAddress(client, address, -1));
    add_socket(client, 1);
    run_until(&g_accepted);
    run_until(&g_connected);
    T_flush_sorted();
    CFDataRef msg = text_data("over a path");
    T("client SendData: %ld", (long)CFSocketSendData(client, NULL, msg, 1.0));
    CFRelease(msg);
    run_until(&g_got);

    drop_socket(client);
    drop_socket(g_conn);
    drop_socket(listener);
    CFRelease(address);
    unlink(path);
}
CONF_MAIN(scenario)
