/* CFSocketConnectToAddress: a background connect (timeout -1) reports
 * through the connect callback — NULL on success, then the write callback
 * in the same round; a pointer to the error (ECONNREFUSED) on failure, and
 * no write callback.  A connect with a timeout returns the outcome itself;
 * CFSocketCreateConnectedToSocketSignature connects at creation. */
#include "conf_socket.h"

static volatile int g_done;
static CFSocketNativeHandle g_accepted = -1;

static void cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    const char *who = (const char *)info;
    if (type == kCFSocketConnectCallBack) {
        if (data)
            T("%s: connect callback, error %s", who, *(const int32_t *)data == ECONNREFUSED ? "ECONNREFUSED" : "other");
        else
            T("%s: connect callback, no error (address %s)", who, address ? "set" : "NULL");
    } else if (type == kCFSocketWriteCallBack) {
        T("%s: write callback", who);
    } else {
        T("%s: type %lu", who, (unsigned long)type);
    }
    g_done = 1;
}

static void accept_cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    g_accepted = *(const CFSocketNativeHandle *)data;
}

static void scenario(void)
{
    CFSocketRef listener = CFSocketCreate(kCFAllocatorDefault, PF_INET, SOCK_STREAM, IPPROTO_TCP,
                                          kCFSocketAcceptCallBack, accept_cb, NULL);
    CFDataRef any = loopback(AF_INET, 0);
    T("listener SetAddress: %ld", (long)CFSocketSetAddress(listener, any));
    CFRelease(any);
    CFDataRef where = CFSocketCopyAddress(listener);

    CFSocketContext ctx = { 0, (void *)"good", NULL, NULL, NULL };
    CFSocketRef good = CFSocketCreate(kCFAllocatorDefault, PF_INET, SOCK_STREAM, IPPROTO_TCP,
                                      kCFSocketConnectCallBack | kCFSocketWriteCallBack, cb, &ctx);
    T("good: flags 0x%lx", (unsigned long)CFSocketGetSocketFlags(good));
    T("good: ConnectToAddress(-1): %ld", (long)CFSocketConnectToAddress(good, where, -1));
    add_socket(good, 0);
    g_done = 0;
    run_until(&g_done);
    T("good: run: %s", run(SOCK_MODE, 0.2, TRUE));

    CFDataRef refused = loopback(AF_INET, closed_port());
    CFSocketContext ctx2 = { 0, (void *)"refused", NULL, NULL, NULL };
    CFSocketRef bad = CFSocketCreate(kCFAllocatorDefault, PF_INET, SOCK_STREAM, IPPROTO_TCP,
                                     kCFSocketConnectCallBack | kCFSocketWriteCallBack, cb, &ctx2);
    T("refused: ConnectToAddress(-1): %ld", (long)CFSocketConnectToAddress(bad, refused, -1));
    add_socket(bad, 0);
    g_done = 0;
    run_until(&g_done);
    T("refused: run: %s", run(SOCK_MODE, 0.2, TRUE));
    T("refused: still valid: %s", yesno(CFSocketIsValid(bad)));

    CFSocketRef timed = CFSocketCreate(kCFAllocatorDefault, PF_INET, SOCK_STREAM, IPPROTO_TCP,
                                       kCFSocketNoCallBack, NULL, NULL);
    T("timed, refused: ConnectToAddress(2.0): %ld", (long)CFSocketConnectToAddress(timed, refused, 2.0));
    drop_socket(timed);
    timed = CFSocketCreate(kCFAllocatorDefault, PF_INET, SOCK_STREAM, IPPROTO_TCP, kCFSocketNoCallBack, NULL, NULL);
    T("timed, listening: ConnectToAddress(2.0): %ld", (long)CFSocketConnectToAddress(timed, where, 2.0));
    CFDataRef peer = CFSocketCopyPeerAddress(timed);
    T("timed: peer is the listener: %s", yesno(peer && port_of(peer) == port_of(where)));
    if (peer) CFRelease(peer);
    drop_socket(timed);

    CFSocketSignature sig = { PF_INET, SOCK_STREAM, IPPROTO_TCP, where };
    CFSocketRef sigsock = CFSocketCreateConnectedToSocketSignature(kCFAllocatorDefault, &sig, kCFSocketNoCallBack,
                                                                   NULL, NULL, 2.0);
    T("connected to signature: %s, valid %s", sigsock ? "socket" : "NULL", yesno(sigsock && CFSocketIsValid(sigsock)));
    if (sigsock) drop_socket(sigsock);
    sig.address = refused;
    sigsock = CFSocketCreateConnectedToSocketSignature(kCFAllocatorDefault, &sig, kCFSocketNoCallBack, NULL, NULL, 2.0);
    T("connected to a refusing signature: %s", sigsock ? "socket" : "NULL");
    if (sigsock) drop_socket(sigsock);

    drop_socket(good);
    drop_socket(bad);
    drop_socket(listener);
    CFRelease(where);
    CFRelease(refused);
}
CONF_MAIN(scenario)
