/*
 * conf_socket.h — helpers of the CFSocket scenarios (sc_socket_*.c), on top
 * of conf.h; CF names only, loopback only.
 */
#ifndef CONF_SOCKET_H
#define CONF_SOCKET_H

#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define SOCK_MODE CFSTR("conf.socket")

static CFDataRef data_of(const void *bytes, size_t n)
{
    return CFDataCreate(kCFAllocatorDefault, (const uint8_t *)bytes, (CFIndex)n);
}

static CFDataRef text_data(const char *s) { return data_of(s, strlen(s)); }

/* The loopback address of `family` (AF_INET or AF_INET6) with `port`. */
static CFDataRef loopback(int family, uint16_t port)
{
    if (family == AF_INET6) {
        struct sockaddr_in6 a;
        memset(&a, 0, sizeof a);
        a.sin6_family = AF_INET6;
        a.sin6_port = htons(port);
        a.sin6_addr = in6addr_loopback;
        return data_of(&a, sizeof a);
    }
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return data_of(&a, sizeof a);
}

static uint16_t port_of(CFDataRef address)
{
    if (!address || CFDataGetLength(address) < (CFIndex)sizeof(struct sockaddr_in)) return 0;
    const struct sockaddr *sa = (const struct sockaddr *)CFDataGetBytePtr(address);
    if (sa->sa_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
    return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

/* "inet", "inet6", "unix", or "none" for NULL / shorter than a family. */
static const char *family_of(CFDataRef address)
{
    if (!address || CFDataGetLength(address) < 2) return "none";
    switch (((const struct sockaddr *)CFDataGetBytePtr(address))->sa_family) {
    case AF_INET: return "inet";
    case AF_INET6: return "inet6";
    case AF_UNIX: return "unix";
    default: return "?";
    }
}

/* The text of a data argument, for tracing (at most 63 bytes). */
static const char *text_of(const void *data)
{
    static _Thread_local char buf[64];
    CFDataRef d = (CFDataRef)data;
    CFIndex n = CFDataGetLength(d);
    if (n > 63) n = 63;
    memcpy(buf, CFDataGetBytePtr(d), (size_t)n);
    buf[n] = 0;
    return buf;
}

/* Adds the socket's source to SOCK_MODE of the current loop with `order`
 * (sources ready in one pass run by order). */
static void add_socket(CFSocketRef s, CFIndex order)
{
    CFRunLoopSourceRef src = CFSocketCreateRunLoopSource(kCFAllocatorDefault, s, order);
    CHECK(src != NULL);
    if (!src) return;
    CFRunLoopAddSource(CFRunLoopGetCurrent(), src, SOCK_MODE);
    CFRelease(src);
}

static void drop_socket(CFSocketRef s)
{
    CFSocketInvalidate(s);
    CFRelease(s);
}

/* Runs SOCK_MODE, a pass at a time (returning after each handled source),
 * until *flag is set or 10 s went by; returns whether it was set. */
static int run_until(volatile int *flag)
{
    CFAbsoluteTime end = now() + 10.0;
    while (!*flag && now() < end) CFRunLoopRunInMode(SOCK_MODE, 0.5, TRUE);
    return *flag;
}

/* A loopback TCP port nobody listens on (bound, read, closed). */
static uint16_t closed_port(void)
{
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sin;
    CHECK(bind(probe, (struct sockaddr *)&sin, sizeof sin) == 0);
    CHECK(getsockname(probe, (struct sockaddr *)&sin, &len) == 0);
    close(probe);
    return ntohs(sin.sin_port);
}

#endif /* CONF_SOCKET_H */
