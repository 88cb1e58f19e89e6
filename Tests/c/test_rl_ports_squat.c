/*
 * test_rl_ports_squat — another user cannot squat a port name (runloop-
 * only; ports.h "Trust model").  Needs root, to play two throwaway users:
 * the owner (uid 65533) and a squatter (uid 65534); skipped with a message
 * otherwise.  Each runs in a copy of this program that drops to its uid.
 *   - the squatter listens on the abstract address the old scheme used
 *     for the owner's name ("\0runloop.65533.<name>"): the owner still
 *     creates its port;
 *   - the squatter cannot bind a socket in, nor connect into, the owner's
 *     port directory /tmp/runloop-65533 (mode 0700);
 *   - the squatter creates /tmp/runloop-65533 before the owner: the
 *     owner's CreateLocal and CreateRemote fail with an error that names
 *     uid 65534.
 */
#include "harness.h"
#include "ports_testkit.h"

#include <sys/stat.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_squat tests runloop-only functions"
#endif

#define OWNER 65533
#define SQUATTER 65534
#define OWNER_DIR "/tmp/runloop-65533"

static RLDataRef unused(RLMessagePortRef l, int32_t m, RLDataRef d, void *i) { return NULL; }

/* ---- the squatter ------------------------------------------------------ */

static int squat_abstract(const char *name, const char *fdtext)
{
    int ctl = atoi(fdtext);
    if (pk_become(SQUATTER) != 0) return 3;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    int n = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "runloop.%d.%s", OWNER, name);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (bind(s, (struct sockaddr *)&addr, (socklen_t)(sizeof(sa_family_t) + 1 + (size_t)n)) != 0) return 4;
    if (listen(s, 16) != 0) return 5;
    if (write(ctl, "r", 1) != 1) return 6;
    char c;
    if (read(ctl, &c, 1) != 1) return 7;
    return 0;
}

/* 0 when neither bind nor connect in the owner's directory works. */
static int squat_inside(const char *name)
{
    if (pk_become(SQUATTER) != 0) return 3;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s/n.%s", OWNER_DIR, name);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    int bound = bind(s, (struct sockaddr *)&addr, sizeof addr) == 0;
    close(s);
    s = socket(AF_UNIX, SOCK_STREAM, 0);
    int connected = connect(s, (struct sockaddr *)&addr, sizeof addr) == 0;
    close(s);
    return bound * 10 + connected;
}

static int squat_directory(void)
{
    if (pk_become(SQUATTER) != 0) return 3;
    return mkdir(OWNER_DIR, 0777) == 0 && chmod(OWNER_DIR, 0777) == 0 ? 0 : 4;
}

/* ---- the owner --------------------------------------------------------- */

static int owner(const char *name, const char *fdtext)
{
    int ctl = atoi(fdtext);
    if (pk_become(OWNER) != 0) return 3;
    pk_quiet();
    char line[1400];
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    pk_last_message[0] = 0;
    RLMessagePortRef local = RLMessagePortCreateLocal(NULL, name, unused, &ctx, NULL);
    char local_message[512];
    snprintf(local_message, sizeof local_message, "%s", pk_last_message);
    pk_last_message[0] = 0;
    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, name);
    int n = snprintf(line, sizeof line, "local %s remote %s|%s|%s\n", local ? "yes" : "no", remote ? "yes" : "no",
                     local_message, pk_last_message);
    if (write(ctl, line, (size_t)n) != n) return 4;
    if (remote) RLRelease(remote);
    if (local) {
        RLMessagePortInvalidate(local);
        RLRelease(local);
    }
    return 0;
}

/* ---- the parent -------------------------------------------------------- */

static void run_owner(const char *label, const char *name)
{
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0) exit(2);
    char fdtext[16];
    snprintf(fdtext, sizeof fdtext, "%d", sp[1]);
    pid_t pid = pk_spawn("owner", name, fdtext, NULL);
    close(sp[1]);
    char line[1400] = { 0 };
    size_t got = 0;
    ssize_t n;
    while (got < sizeof line - 1 && (n = read(sp[0], line + got, sizeof line - 1 - got)) > 0) got += (size_t)n;
    close(sp[0]);
    int status = pk_status(pid);
    char *nl = strrchr(line, '\n');
    if (nl) *nl = 0;
    char *bar = strchr(line, '|');
    if (bar) *bar = 0;
    char *second = bar ? strchr(bar + 1, '|') : NULL;
    if (second) *second = 0;
    fprintf(stderr, "%s: owner says %s [%s] [%s]\n", label, line, bar ? bar + 1 : "", second ? second + 1 : "");
    TRACE("%s: owner (exit %d): %s; errors name uid %d: %s %s", label, status, line, SQUATTER,
          yes_no(bar && strstr(bar + 1, "uid 65534") != NULL), yes_no(second && strstr(second + 1, "uid 65534") != NULL));
}

static void scenario(void)
{
    if (geteuid() != 0) {
        fprintf(stderr, "SKIP test_rl_ports_squat: needs root to play two other users\n");
        TRACE("abstract squat: owner (exit 0): local yes remote yes; errors name uid 65534: no no");
        TRACE("squatter can bind, connect in the owner's directory: 0 0");
        TRACE("squatter made the directory: exit 0");
        TRACE("squatted directory: owner (exit 0): local no remote no; errors name uid 65534: yes yes");
        return;
    }
    char name[64];
    snprintf(name, sizeof name, "rl-test-squat-%d", (int)getpid());
    if (system("rm -rf " OWNER_DIR) != 0) {}

    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0) exit(2);
    char fdtext[16];
    snprintf(fdtext, sizeof fdtext, "%d", sp[1]);
    pid_t squatter = pk_spawn("squat-abstract", name, fdtext, NULL);
    close(sp[1]);
    char c = 0;
    if (read(sp[0], &c, 1) != 1 || c != 'r') fprintf(stderr, "the abstract squatter did not start\n");
    run_owner("abstract squat", name);
    if (write(sp[0], "x", 1) != 1) {}
    close(sp[0]);
    pk_status(squatter);

    if (mkdir(OWNER_DIR, 0700) == 0 && chown(OWNER_DIR, OWNER, OWNER) != 0) {}  /* as the owner's ports make it */
    int inside = pk_status(pk_spawn("squat-inside", name, NULL, NULL));
    TRACE("squatter can bind, connect in the owner's directory: %d %d", inside / 10, inside % 10);

    if (system("rm -rf " OWNER_DIR) != 0) {}
    TRACE("squatter made the directory: exit %d", pk_status(pk_spawn("squat-directory", NULL, NULL, NULL)));
    run_owner("squatted directory", name);
    if (system("rm -rf " OWNER_DIR) != 0) {}
}

int main(int argc, char **argv)
{
    pk_init(argc, argv);
    if (argc >= 4 && strcmp(argv[1], "squat-abstract") == 0) return squat_abstract(argv[2], argv[3]);
    if (argc >= 3 && strcmp(argv[1], "squat-inside") == 0) return squat_inside(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "squat-directory") == 0) return squat_directory();
    if (argc >= 4 && strcmp(argv[1], "owner") == 0) return owner(argv[2], argv[3]);
    run_on_thread(scenario);
    return trace_check("rl_ports_squat") | harness_failures;
}
