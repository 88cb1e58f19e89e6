/* UDP over loopback: a datagram socket bound with CFSocketSetAddress gets
 * each datagram as one CFData with the sender's address; CFSocketSendData
 * with an address sends to it (sendto); datagrams keep their boundaries. */
#include "conf_socket.h"

static volatile int g_count;
static uint16_t g_sender_port;

static void cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    g_count++;
    T("datagram %d: \"%s\" from %s, the sender's port: %s", g_count, text_of(data), family_of(address),
      yesno(port_of(address) == g_sender_port));
}

static void scenario(void)
{
    for (int pass = 0; pass < 2; pass++) {
        int family = pass ? AF_INET6 : AF_INET;
        T("--- %s", pass ? "IPv6" : "IPv4");
        CFSocketRef rx = CFSocketCreate(kCFAllocatorDefault, family, SOCK_DGRAM, IPPROTO_UDP,
                                        kCFSocketDataCallBack, cb, NULL);
        CFDataRef any = loopback(family, 0);
        T("rx SetAddress: %ld", (long)CFSocketSetAddress(rx, any));
        CFRelease(any);
        CFDataRef where = CFSocketCopyAddress(rx);
        add_socket(rx, 0);

        CFSocketRef tx = CFSocketCreate(kCFAllocatorDefault, family, SOCK_DGRAM, 0, kCFSocketNoCallBack, NULL, NULL);
        CFDataRef from = loopback(family, 0);
        T("tx SetAddress: %ld", (long)CFSocketSetAddress(tx, from));
        CFRelease(from);
        CFDataRef txaddr = CFSocketCopyAddress(tx);
        g_sender_port = port_of(txaddr);
        CFRelease(txaddr);
        g_count = 0;
        const char *msgs[] = { "alpha", "beta" };
        for (int i = 0; i < 2; i++) {
            CFDataRef d = text_data(msgs[i]);
            T("SendData to rx: %ld", (long)CFSocketSendData(tx, where, d, 1.0));
            CFRelease(d);
        }
        volatile int two = 0;
        CFAbsoluteTime end = now() + 10.0;
        while (g_count < 2 && now() < end) CFRunLoopRunInMode(SOCK_MODE, 0.5, TRUE);
        two = g_count == 2;
        T("both arrived: %s", yesno(two));
        drop_socket(tx);
        drop_socket(rx);
        CFRelease(where);
    }
}
CONF_MAIN(scenario)
