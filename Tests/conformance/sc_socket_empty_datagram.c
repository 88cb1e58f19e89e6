/* An empty UDP datagram is data, not the end of a stream: the data callout
 * gets a zero-length CFData with the sender's address, the socket stays
 * valid, and the datagrams after it are delivered as usual.  (Zero bytes
 * end only a connection-oriented socket.)  The empty datagram is sent with
 * sendto(2): CFSocketSendData refuses empty data. */
#include "conf_socket.h"

static volatile int g_count;
static uint16_t g_sender_port;

static void cb(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    g_count++;
    T("datagram %d: type %lu, length %ld, \"%s\", from the sender: %s, socket valid: %s", g_count,
      (unsigned long)type, (long)CFDataGetLength((CFDataRef)data), text_of(data),
      yesno(port_of(address) == g_sender_port), yesno(CFSocketIsValid(s)));
}

static void scenario(void)
{
    CFSocketRef rx = CFSocketCreate(kCFAllocatorDefault, AF_INET, SOCK_DGRAM, IPPROTO_UDP,
                                    kCFSocketDataCallBack, cb, NULL);
    CFDataRef any = loopback(AF_INET, 0);
    T("rx SetAddress: %ld", (long)CFSocketSetAddress(rx, any));
    CFRelease(any);
    CFDataRef where = CFSocketCopyAddress(rx);
    add_socket(rx, 0);

    int tx = socket(AF_INET, SOCK_DGRAM, 0);
    CFDataRef from = loopback(AF_INET, 0);
    CHECK(bind(tx, (const struct sockaddr *)CFDataGetBytePtr(from), (socklen_t)CFDataGetLength(from)) == 0);
    CFRelease(from);
    struct sockaddr_in self;
    socklen_t length = sizeof self;
    CHECK(getsockname(tx, (struct sockaddr *)&self, &length) == 0);
    g_sender_port = ntohs(self.sin_port);

    const struct sockaddr *to = (const struct sockaddr *)CFDataGetBytePtr(where);
    socklen_t tolen = (socklen_t)CFDataGetLength(where);
    T("empty datagram sent: %s", yesno(sendto(tx, "", 0, 0, to, tolen) == 0));
    CFAbsoluteTime end = now() + 10.0;
    while (g_count < 1 && now() < end) CFRunLoopRunInMode(SOCK_MODE, 0.5, TRUE);
    T("it arrived: %s", yesno(g_count == 1));
    T("socket valid after it: %s", yesno(CFSocketIsValid(rx)));
    T("\"after\" sent: %s", yesno(sendto(tx, "after", 5, 0, to, tolen) == 5));
    end = now() + 10.0;
    while (g_count < 2 && now() < end) CFRunLoopRunInMode(SOCK_MODE, 0.5, TRUE);
    T("both arrived: %s", yesno(g_count == 2));
    T("socket valid at the end: %s", yesno(CFSocketIsValid(rx)));
    close(tx);
    drop_socket(rx);
    CFRelease(where);
}
CONF_MAIN(scenario)
