/*
 * test_rl_ports_checkin — the classic CF check-in handshake between two
 * threads of one process, with message ports (runloop-only; trace written
 * from include/runloop/ports.h):
 *   - the server thread serves local port "checkin" on its loop; a worker
 *     thread creates its own local port, connects to "checkin" and sends a
 *     check-in request carrying its port's name, waiting for the reply;
 *   - the server's callout runs on the server thread, gets the data, opens
 *     a remote to the worker's port and replies; the reply reaches the
 *     worker as new data it owns;
 *   - the server then sends the worker a task and gets its result, and a
 *     one-way "quit" (no reply: returns once written) after which the
 *     worker stops its loop, invalidates its port and exits;
 *   - the server's remote to the worker then reports invalid, and its
 *     invalidation callback ran once, on the server thread;
 *   - names, IsRemote, the context, GetTypeID.
 */
#include "harness.h"

#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_checkin tests runloop-only functions"
#endif

enum { MSG_CHECKIN = 1, MSG_TASK = 2, MSG_QUIT = 3 };

static char g_server_name[64], g_worker_name[64];
static RLRunLoopRef g_server_loop;
static RLMessagePortRef g_to_worker;
static pthread_t g_server_thread;
static int g_invalidations;

static RLDataRef text_data(const char *s) { return RLDataCreate(NULL, (const uint8_t *)s, (RLIndex)strlen(s)); }
/* The data as text; "NULL" for none. */
static const char *text_of(RLDataRef d, char *buf, size_t size)
{
    if (!d) return "NULL";
    snprintf(buf, size, "%.*s", (int)RLDataGetLength(d), (const char *)RLDataGetBytePtr(d));
    return buf;
}
/* Port names contain the pid (tests run in parallel); trace them without. */
static const char *role_of(const char *name)
{
    if (!name) return "(none)";
    if (strcmp(name, g_server_name) == 0) return "<checkin>";
    if (strcmp(name, g_worker_name) == 0) return "<worker>";
    return name;
}

static void on_invalid(RLMessagePortRef ms, void *info)
{
    g_invalidations++;
    TRACE("server: remote to the worker invalidated, on the server thread: %s",
          yes_no(pthread_equal(pthread_self(), g_server_thread)));
}

static void talk_to_worker(void *info)
{
    char buf[128];
    RLDataRef task = text_data("task 42"), result = NULL;
    int32_t rc = RLMessagePortSendRequest(g_to_worker, MSG_TASK, task, 1, 10, kRLRunLoopDefaultMode, &result);
    TRACE("server: task sent, status %d, result \"%s\"", rc, text_of(result, buf, sizeof buf));
    RLRelease(task);
    if (result) RLRelease(result);
    rc = RLMessagePortSendRequest(g_to_worker, MSG_QUIT, NULL, 1, 0, NULL, NULL);
    CHECK(rc == kRLMessagePortSuccess);
    RLRunLoopStop(g_server_loop);
}

static RLDataRef server_callout(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    char buf[128];
    TRACE("server: msgid %d from \"%s\" (info %s, on the server thread: %s)", msgid,
          role_of(text_of(data, buf, sizeof buf)), (const char *)info,
          yes_no(pthread_equal(pthread_self(), g_server_thread)));
    if (msgid != MSG_CHECKIN) return NULL;
    g_to_worker = RLMessagePortCreateRemote(NULL, text_of(data, buf, sizeof buf));
    TRACE("server: remote to the worker: %s, remote %s, name %s", yes_no(g_to_worker != NULL),
          yes_no(RLMessagePortIsRemote(g_to_worker)), role_of(RLMessagePortGetName(g_to_worker)));
    RLMessagePortSetInvalidationCallBack(g_to_worker, on_invalid);
    RLRunLoopPerformFunction(g_server_loop, kRLRunLoopDefaultMode, talk_to_worker, NULL);
    return text_data("welcome");
}

static RLDataRef worker_callout(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    char buf[128];
    TRACE("worker: msgid %d, data \"%s\"", msgid, text_of(data, buf, sizeof buf));
    if (msgid == MSG_QUIT) {
        RLRunLoopStop(RLRunLoopGetCurrent());
        return NULL;
    }
    return text_data("result 42");
}

static void *worker(void *arg)
{
    char buf[128];
    RLMessagePortContext ctx = { 0, "worker-info", NULL, NULL, NULL };
    RLMessagePortRef mine = RLMessagePortCreateLocal(NULL, g_worker_name, worker_callout, &ctx, NULL);
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, mine, 0);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), src, kRLRunLoopDefaultMode);

    RLMessagePortRef server = RLMessagePortCreateRemote(NULL, g_server_name);
    RLDataRef hello = text_data(g_worker_name), reply = NULL;
    int32_t rc = RLMessagePortSendRequest(server, MSG_CHECKIN, hello, 1, 10, kRLRunLoopDefaultMode, &reply);
    TRACE("worker: check-in status %d, reply \"%s\", reply is mine: retain count %ld", rc,
          text_of(reply, buf, sizeof buf), reply ? (long)RLGetRetainCount(reply) : 0L);
    RLRelease(hello);
    if (reply) RLRelease(reply);
    RLRelease(server);

    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 30, 0);
    TRACE("worker: loop returned %s", result_name(r));
    RLMessagePortInvalidate(mine);
    TRACE("worker: own port valid after Invalidate: %s; its source valid: %s",
          yes_no(RLMessagePortIsValid(mine)), yes_no(RLRunLoopSourceIsValid(src)));
    RLRelease(src);
    RLRelease(mine);
    return NULL;
}

static void scenario(void)
{
    snprintf(g_server_name, sizeof g_server_name, "rl-test-checkin-%d", (int)getpid());
    snprintf(g_worker_name, sizeof g_worker_name, "rl-test-worker-%d", (int)getpid());
    g_server_thread = pthread_self();
    g_server_loop = RLRunLoopGetCurrent();

    RLMessagePortContext ctx = { 0, "server-info", NULL, NULL, NULL };
    RLBoolean shouldFree = 1;
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, g_server_name, server_callout, &ctx, &shouldFree);
    TRACE("server: port created: %s, shouldFreeInfo %s, remote %s, name %s, type is RLMessagePort: %s",
          yes_no(port != NULL), yes_no(shouldFree), yes_no(RLMessagePortIsRemote(port)),
          role_of(RLMessagePortGetName(port)), yes_no(RLGetTypeID(port) == RLMessagePortGetTypeID()));
    RLMessagePortContext got;
    RLMessagePortGetContext(port, &got);
    TRACE("server: context info \"%s\"", (const char *)got.info);
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, port, 0);
    RLRunLoopSourceRef again = RLMessagePortCreateRunLoopSource(NULL, port, 0);
    TRACE("server: asking twice gives the same source: %s", yes_no(src == again));
    RLRelease(again);
    RLRunLoopAddSource(g_server_loop, src, kRLRunLoopDefaultMode);

    pthread_t w = start_thread(worker, NULL);
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 30, 0);
    pthread_join(w, NULL);
    TRACE("server: loop returned %s", result_name(r));

    RLBoolean valid = RLMessagePortIsValid(g_to_worker);
    TRACE("server: remote to the worker valid: %s; invalidation callbacks %d", yes_no(valid), g_invalidations);
    TRACE("server: sending to it now: status %d",
          RLMessagePortSendRequest(g_to_worker, MSG_TASK, NULL, 1, 1, kRLRunLoopDefaultMode, NULL));
    TRACE("server: invalidation callbacks %d", g_invalidations);
    RLRelease(g_to_worker);

    RLMessagePortInvalidate(port);
    RLRelease(src);
    RLRelease(port);
    TRACE("done");
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_ports_checkin") | harness_failures;
}
