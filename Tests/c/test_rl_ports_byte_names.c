/*
 * test_rl_ports_byte_names — port names are the bytes given (runloop-only;
 * ports.h: "A name is 1 to 80 bytes and must not contain a NUL byte").
 * Names that are not UTF-8 are neither rewritten nor confused:
 *   - "x\xff" and "x\xfe" are two ports, each reached by its own remote;
 *   - a remote for "x\xfd", which nobody serves, finds no port;
 *   - GetName returns the very bytes given, also after SetName;
 *   - 80 bytes of 0xff are a valid name, 81 bytes are not.
 */
#include "harness.h"
#include "ports_testkit.h"

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_byte_names tests runloop-only functions"
#endif

static RLDataRef answer(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    return RLDataCreate(NULL, (const uint8_t *)info, (RLIndex)strlen((const char *)info));
}

static RLRunLoopRef g_loop;
static gate_t g_ready = GATE_INIT;
static RLMessagePortRef g_ff, g_fe;

static RLMessagePortRef serve_port(const char *name, const char *label)
{
    RLMessagePortContext ctx = { 0, (void *)label, NULL, NULL, NULL };
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, name, answer, &ctx, NULL);
    if (port) {
        RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, port, 0);
        RLRunLoopAddSource(RLRunLoopGetCurrent(), src, kRLRunLoopDefaultMode);
        RLRelease(src);
    }
    return port;
}

static void *server(void *arg)
{
    g_loop = RLRunLoopGetCurrent();
    g_ff = serve_port("x\xff", "server of x\\xff");
    g_fe = serve_port("x\xfe", "server of x\\xfe");
    gate_post(&g_ready);
    RLRunLoopRun();
    return NULL;
}

static void ask(const char *label, const char *name)
{
    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, name);
    if (!remote) {
        TRACE("%s: no port", label);
        return;
    }
    RLDataRef reply = NULL;
    int32_t rc = RLMessagePortSendRequest(remote, 1, NULL, 5, 5, kRLRunLoopDefaultMode, &reply);
    TRACE("%s: status %d, answered by \"%.*s\"", label, rc, reply ? (int)RLDataGetLength(reply) : 4,
          reply ? (const char *)RLDataGetBytePtr(reply) : "NULL");
    if (reply) RLRelease(reply);
    RLRelease(remote);
}

static int same_bytes(RLMessagePortRef port, const char *name)
{
    const char *got = RLMessagePortGetName(port);
    return got && strcmp(got, name) == 0;
}

static void scenario(void)
{
    pthread_t th = start_thread(server, NULL);
    gate_wait(&g_ready);
    TRACE("local x\\xff: %s, local x\\xfe: %s", yes_no(g_ff != NULL), yes_no(g_fe != NULL));
    TRACE("GetName gives the bytes given: %s %s", yes_no(g_ff && same_bytes(g_ff, "x\xff")),
          yes_no(g_fe && same_bytes(g_fe, "x\xfe")));
    ask("remote x\\xff", "x\xff");
    ask("remote x\\xfe", "x\xfe");
    ask("remote x\\xfd", "x\xfd");

    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    char long_name[82];
    memset(long_name, 0xff, 80);
    long_name[80] = 0;
    RLMessagePortRef p80 = RLMessagePortCreateLocal(NULL, long_name, answer, &ctx, NULL);
    TRACE("80 bytes of 0xff: %s, GetName same: %s", yes_no(p80 != NULL), yes_no(p80 && same_bytes(p80, long_name)));
    /* Escaped, 80 bytes of 0xff do not fit a socket address: the socket
     * file is named by the name's SHA-256 (as sha256sum computes it). */
    char tmp[64], cmd[128], hex[65] = "", path[200];
    snprintf(tmp, sizeof tmp, "/tmp/rl-test-byte-names-%d", (int)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f) { fwrite(long_name, 1, 80, f); fclose(f); }
    snprintf(cmd, sizeof cmd, "sha256sum %s", tmp);
    FILE *p = popen(cmd, "r");
    if (p) { if (fscanf(p, "%64s", hex) != 1) hex[0] = 0; pclose(p); }
    unlink(tmp);
    snprintf(path, sizeof path, "/tmp/runloop-%d/h.%s", (int)getuid(), hex);
    TRACE("its socket file is h.<sha-256 of the name>: %s", yes_no(hex[0] && access(path, F_OK) == 0));
    long_name[80] = (char)0xff;
    long_name[81] = 0;
    pk_quiet();
    pk_last_code = 0;
    RLMessagePortRef p81 = RLMessagePortCreateLocal(NULL, long_name, answer, &ctx, NULL);
    TRACE("81 bytes: %s, error %d", yes_no(p81 != NULL), pk_last_code);
    RLSetErrorHandler(NULL, NULL);

    int renamed = p80 && RLMessagePortSetName(p80, "y\xc3\x28");
    TRACE("SetName to y\\xc3\\x28: %s, GetName same: %s", yes_no(renamed), yes_no(p80 && same_bytes(p80, "y\xc3\x28")));
    if (p80) {
        RLMessagePortInvalidate(p80);
        RLRelease(p80);
    }

    RLRunLoopStop(g_loop);
    pthread_join(th, NULL);
    if (g_ff) { RLMessagePortInvalidate(g_ff); RLRelease(g_ff); }
    if (g_fe) { RLMessagePortInvalidate(g_fe); RLRelease(g_fe); }
    TRACE("done");
}

int main(int argc, char **argv)
{
    pk_init(argc, argv);
    run_on_thread(scenario);
    return trace_check("rl_ports_byte_names") | harness_failures;
}
