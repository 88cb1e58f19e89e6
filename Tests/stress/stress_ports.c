/*
 * stress_ports — message ports across processes under load, then with the
 * server killed (kill -9) mid-stream.  Invariants:
 *   - integrity: N checksummed requests from 6 threads (4 with a remote
 *     each, 2 sharing one) are all answered, each reply the transform of
 *     its own request (nothing lost, duplicated, corrupted or crossed);
 *     one-way messages sent alongside all arrive exactly once (the server
 *     counts each sender's sequence numbers and reports gaps and repeats);
 *   - kill -9: with 4 threads sending to a second server, SIGKILL the
 *     server: every sender gets an error code (never a hang, never a
 *     success after the server is reaped) within 0.5 s of the kill.
 *
 *   stress_ports [requests]      (default 20000)
 */
#include "harness.h"
#include "ports_testkit.h"

#include <stdatomic.h>

enum { MSG_WORK = 1, MSG_ONEWAY = 2, MSG_REPORT = 3 };
enum { SENDERS = 6, MAX_PAYLOAD = 16384, ONEWAY_SENDERS = 8 };

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
    return h;
}

/* ---- the server process ------------------------------------------------ */

static uint32_t g_seen_next[ONEWAY_SENDERS];
static long g_oneway_bad, g_corrupt;

/* request: [u64 checksum of the rest][u32 sender][u32 seq][bytes...]
 * reply:   the request's bytes after the checksum, each XOR 0x5a, then the
 *          request's checksum. */
static RLDataRef serve_callout(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    const uint8_t *p = data ? RLDataGetBytePtr(data) : NULL;
    RLIndex n = data ? RLDataGetLength(data) : 0;
    if (msgid == MSG_REPORT) {
        char text[128];
        snprintf(text, sizeof text, "%ld %ld %u %u", g_oneway_bad, g_corrupt, g_seen_next[0], g_seen_next[1]);
        return RLDataCreate(NULL, (const uint8_t *)text, (RLIndex)strlen(text));
    }
    if (n < 16) { g_corrupt++; return NULL; }
    uint64_t sum;
    memcpy(&sum, p, 8);
    if (sum != fnv(p + 8, (size_t)n - 8)) g_corrupt++;
    if (msgid == MSG_ONEWAY) {
        uint32_t sender, seq;
        memcpy(&sender, p + 8, 4);
        memcpy(&seq, p + 12, 4);
        if (sender >= ONEWAY_SENDERS || seq != g_seen_next[sender]) g_oneway_bad++;
        else g_seen_next[sender]++;
        return NULL;
    }
    uint8_t *out = (uint8_t *)malloc((size_t)n);
    for (RLIndex i = 8; i < n; i++) out[i - 8] = p[i] ^ 0x5a;
    memcpy(out + n - 8, &sum, 8);
    RLDataRef reply = RLDataCreate(NULL, out, n);
    free(out);
    return reply;
}

static int serve(const char *name, const char *fdtext)
{
    int ready = atoi(fdtext);
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, name, serve_callout, &ctx, NULL);
    if (!port) return 3;
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, port, 0);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), src, kRLRunLoopDefaultMode);
    if (write(ready, "r", 1) != 1) return 4;
    close(ready);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 600, 0);
    return 0;
}

/* A server killed with SIGKILL leaves its socket file: a local port of the
 * same name replaces it, and removes it when invalidated. */
static void remove_stale(const char *name)
{
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, name, serve_callout, &ctx, NULL);
    if (!port) return;
    RLMessagePortInvalidate(port);
    RLRelease(port);
}

static pid_t start_server(const char *name)
{
    int p[2];
    if (pipe(p) != 0) exit(2);
    char fdtext[16];
    snprintf(fdtext, sizeof fdtext, "%d", p[1]);
    pid_t pid = pk_spawn("serve", name, fdtext, NULL);
    close(p[1]);
    char c;
    if (read(p[0], &c, 1) != 1) { fprintf(stderr, "the server did not start\n"); exit(2); }
    close(p[0]);
    return pid;
}

/* ---- integrity --------------------------------------------------------- */

static char g_name[64];
static long g_per_thread;
static RLMessagePortRef g_shared;
static atomic_long g_ok, g_bad, g_errors;

typedef struct { int index; RLMessagePortRef remote; uint32_t seed; } sender_t;

static size_t make_request(uint8_t *buf, uint32_t *seed, uint32_t sender, uint32_t seq)
{
    size_t n = 16 + (rand_r(seed) % MAX_PAYLOAD);
    memcpy(buf + 8, &sender, 4);
    memcpy(buf + 12, &seq, 4);
    for (size_t i = 16; i < n; i++) buf[i] = (uint8_t)rand_r(seed);
    uint64_t sum = fnv(buf + 8, n - 8);
    memcpy(buf, &sum, 8);
    return n;
}

static void *send_requests(void *arg)
{
    sender_t *s = (sender_t *)arg;
    static _Thread_local uint8_t buf[16 + MAX_PAYLOAD];
    for (long i = 0; i < g_per_thread; i++) {
        size_t n = make_request(buf, &s->seed, (uint32_t)s->index, (uint32_t)i);
        RLDataRef d = RLDataCreate(NULL, buf, (RLIndex)n), reply = NULL;
        int32_t rc = RLMessagePortSendRequest(s->remote, MSG_WORK, d, 10, 10, kRLRunLoopDefaultMode, &reply);
        RLRelease(d);
        if (rc != kRLMessagePortSuccess) { atomic_fetch_add(&g_errors, 1); continue; }
        int good = reply && RLDataGetLength(reply) == (RLIndex)n;
        const uint8_t *r = good ? RLDataGetBytePtr(reply) : NULL;
        for (size_t k = 8; good && k < n; k++) good = r[k - 8] == (uint8_t)(buf[k] ^ 0x5a);
        good = good && memcmp(r + n - 8, buf, 8) == 0;
        atomic_fetch_add(good ? &g_ok : &g_bad, 1);
        if (reply) RLRelease(reply);
    }
    return NULL;
}

static void *send_oneway(void *arg)
{
    sender_t *s = (sender_t *)arg;
    static _Thread_local uint8_t buf[16 + MAX_PAYLOAD];
    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, g_name);
    for (long i = 0; i < g_per_thread / 2; i++) {
        size_t n = make_request(buf, &s->seed, (uint32_t)s->index, (uint32_t)i);
        RLDataRef d = RLDataCreate(NULL, buf, (RLIndex)n);
        if (RLMessagePortSendRequest(remote, MSG_ONEWAY, d, 10, 0, NULL, NULL) != kRLMessagePortSuccess)
            atomic_fetch_add(&g_errors, 1);
        RLRelease(d);
    }
    RLRelease(remote);
    return NULL;
}

static int integrity(long total)
{
    snprintf(g_name, sizeof g_name, "rl-stress-ports-%d", (int)getpid());
    pid_t server = start_server(g_name);
    g_per_thread = total / SENDERS;
    g_shared = RLMessagePortCreateRemote(NULL, g_name);
    sender_t senders[SENDERS], oneway[2];
    pthread_t threads[SENDERS + 2];
    for (int i = 0; i < SENDERS; i++) {
        senders[i].index = i;
        senders[i].seed = (uint32_t)(1234 + i);
        senders[i].remote = i < 4 ? RLMessagePortCreateRemote(NULL, g_name) : g_shared;
        threads[i] = start_thread(send_requests, &senders[i]);
    }
    for (int i = 0; i < 2; i++) {
        oneway[i].index = i;
        oneway[i].seed = (uint32_t)(99 + i);
        threads[SENDERS + i] = start_thread(send_oneway, &oneway[i]);
    }
    for (int i = 0; i < SENDERS + 2; i++) pthread_join(threads[i], NULL);

    /* The one-way messages of other connections may still be on their way:
     * ask until both senders' counts are complete (or 10 s). */
    long oneway_bad = -1, corrupt = -1, expected = g_per_thread / 2;
    unsigned seen0 = 0, seen1 = 0;
    for (double deadline = now() + 10; now() < deadline; sleep_s(0.01)) {
        RLDataRef report = NULL;
        int32_t rc = RLMessagePortSendRequest(g_shared, MSG_REPORT, NULL, 10, 10, kRLRunLoopDefaultMode, &report);
        if (rc == kRLMessagePortSuccess && report) {
            char text[128] = { 0 };
            size_t len = (size_t)RLDataGetLength(report);
            memcpy(text, RLDataGetBytePtr(report), len < 127 ? len : 127);
            sscanf(text, "%ld %ld %u %u", &oneway_bad, &corrupt, &seen0, &seen1);
        }
        if (report) RLRelease(report);
        if (rc != kRLMessagePortSuccess || (seen0 == expected && seen1 == expected)) break;
    }
    for (int i = 0; i < 4; i++) RLRelease(senders[i].remote);
    RLRelease(g_shared);
    kill(server, SIGKILL);
    pk_status(server);
    remove_stale(g_name);
    long ok = atomic_load(&g_ok), bad = atomic_load(&g_bad), errors = atomic_load(&g_errors);
    printf("integrity: %ld requests answered correctly, %ld wrong, %ld errors; server: one-way %u + %u of %ld "
           "each arrived, %ld out of sequence, %ld corrupt\n", ok, bad, errors, seen0, seen1, expected, oneway_bad, corrupt);
    return ok == g_per_thread * SENDERS && bad == 0 && errors == 0 && oneway_bad == 0 && corrupt == 0
        && seen0 == expected && seen1 == expected ? 0 : 1;
}

/* ---- kill -9 ----------------------------------------------------------- */

static atomic_int g_killed;
static double g_kill_time;
static double g_fail_time[4];
static int g_fail_code[4], g_success_after[4];

static void *send_until_error(void *arg)
{
    int index = (int)(intptr_t)arg;
    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, g_name);
    uint32_t seed = (uint32_t)index;
    static _Thread_local uint8_t buf[16 + MAX_PAYLOAD];
    for (uint32_t i = 0;; i++) {
        size_t n = make_request(buf, &seed, (uint32_t)index, i);
        RLDataRef d = RLDataCreate(NULL, buf, (RLIndex)n), reply = NULL;
        int killed_before = atomic_load(&g_killed) == 2;
        int32_t rc = RLMessagePortSendRequest(remote, MSG_WORK, d, 30, 30, kRLRunLoopDefaultMode, &reply);
        RLRelease(d);
        if (reply) RLRelease(reply);
        if (rc != kRLMessagePortSuccess) {
            g_fail_time[index] = now();
            g_fail_code[index] = rc;
            break;
        }
        if (killed_before) g_success_after[index]++;
    }
    RLRelease(remote);
    return NULL;
}

static int kill9(void)
{
    snprintf(g_name, sizeof g_name, "rl-stress-ports-kill-%d", (int)getpid());
    pid_t server = start_server(g_name);
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) threads[i] = start_thread(send_until_error, (void *)(intptr_t)i);
    sleep_s(0.2);
    g_kill_time = now();
    atomic_store(&g_killed, 1);
    kill(server, SIGKILL);
    pk_status(server);
    atomic_store(&g_killed, 2);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    remove_stale(g_name);
    int status = 0;
    for (int i = 0; i < 4; i++) {
        double after = g_fail_time[i] - g_kill_time;
        printf("kill -9: sender %d got %d after %.2f ms (%d successes after the server was reaped)\n",
               i, g_fail_code[i], after * 1000, g_success_after[i]);
        if (after > 0.5 || g_success_after[i] != 0) status = 1;
        if (g_fail_code[i] != kRLMessagePortBecameInvalidError && g_fail_code[i] != kRLMessagePortIsInvalid) status = 1;
    }
    return status;
}

int main(int argc, char **argv)
{
    pk_init(argc, argv);
    if (argc == 4 && strcmp(argv[1], "serve") == 0) return serve(argv[2], argv[3]);
    long total = argc > 1 ? atol(argv[1]) : 20000;
    if (total < SENDERS) total = SENDERS;
    int status = integrity(total);
    status |= kill9();
    printf("stress_ports: %s\n", status ? "FAILED" : "ok");
    return status | harness_failures;
}
