/*
 * test_rl_ports_timeout — a stalled receiver never hangs a sender
 * (runloop-only; trace written from include/runloop/ports.h):
 *   - the local port exists but no loop serves it yet;
 *   - a 16 MiB request cannot be written (the socket buffer fills): it
 *     returns kRLMessagePortSendTimeout after the send timeout, and the cut
 *     request is never delivered;
 *   - a small request is written but no reply comes: kRLMessagePortReceiveTimeout
 *     after the receive timeout; the remote stays valid;
 *   - a one-way request returns Success at once;
 *   - once a worker thread serves the port (its source added from this
 *     thread to the running worker loop), the requests written earlier are
 *     served in order; the next request gets its own reply, not the late
 *     reply to the timed-out one;
 *   - NaN timeouts are refused, also by a send to the local port itself
 *     (test_rl_ports_local tests such sends).
 */
#include "harness.h"

#include <math.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_timeout tests runloop-only functions"
#endif

static RLDataRef callout(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    TRACE("served msgid %d (%ld bytes)", msgid, data ? (long)RLDataGetLength(data) : -1L);
    char text[64];
    snprintf(text, sizeof text, "reply to %d", msgid);
    return RLDataCreate(NULL, (const uint8_t *)text, (RLIndex)strlen(text));
}

static double elapsed_since(RLAbsoluteTime t0) { return now() - t0; }

static void scenario(void)
{
    char name[64];
    snprintf(name, sizeof name, "rl-test-stalled-%d", (int)getpid());
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef local = RLMessagePortCreateLocal(NULL, name, callout, &ctx, NULL);
    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, name);
    CHECK(local && remote);

    size_t big = 16u << 20;
    uint8_t *bytes = (uint8_t *)calloc(big, 1);
    RLDataRef huge = RLDataCreate(NULL, bytes, (RLIndex)big);
    free(bytes);
    RLAbsoluteTime t0 = now();
    int32_t rc = RLMessagePortSendRequest(remote, 4, huge, 0.2, 5, kRLRunLoopDefaultMode, NULL);
    double took = elapsed_since(t0);
    TRACE("16 MiB to a stalled receiver: status %d (SendTimeout is %d)", rc, kRLMessagePortSendTimeout);
    CHECK(took >= 0.19);
    CHECK(took < 5);
    RLRelease(huge);

    RLDataRef reply = NULL;
    t0 = now();
    rc = RLMessagePortSendRequest(remote, 5, NULL, 1, 0.2, kRLRunLoopDefaultMode, &reply);
    took = elapsed_since(t0);
    TRACE("small request, no reply: status %d (ReceiveTimeout is %d), reply NULL %s, remote valid %s",
          rc, kRLMessagePortReceiveTimeout, yes_no(reply == NULL), yes_no(RLMessagePortIsValid(remote)));
    CHECK(took >= 0.19);
    CHECK(took < 5);
    rc = RLMessagePortSendRequest(remote, 6, NULL, 1, 0, NULL, NULL);
    TRACE("one-way request: status %d", rc);

    RLThreadRef server = RLThreadCreate("rl-test-server");
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, local, 0);
    RLRunLoopAddSource(RLThreadGetRunLoop(server), src, kRLRunLoopDefaultMode);
    rc = RLMessagePortSendRequest(remote, 7, NULL, 1, 10, kRLRunLoopDefaultMode, &reply);
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", reply ? (int)RLDataGetLength(reply) : 4,
             reply ? (const char *)RLDataGetBytePtr(reply) : "NULL");
    TRACE("served now: status %d, reply \"%s\"", rc, buf);
    if (reply) RLRelease(reply);

    fprintf(stderr, "(error lines about NaN timeouts are expected)\n");
    TRACE("NaN send timeout: status %d", RLMessagePortSendRequest(remote, 8, NULL, NAN, 1, NULL, NULL));
    TRACE("NaN receive timeout, to the local port: status %d", RLMessagePortSendRequest(local, 8, NULL, 1, NAN, NULL, NULL));

    RLThreadStop(server);
    RLRelease(server);
    RLMessagePortInvalidate(local);
    RLRelease(src);
    RLRelease(local);
    RLRelease(remote);
    TRACE("done");
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_ports_timeout") | harness_failures;
}
