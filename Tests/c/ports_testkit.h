/*
 * ports_testkit.h — helpers shared by the message-port tests that play a
 * hostile or careless peer (test_rl_ports_flood, _emfile, _backpressure,
 * _order, _squat).  Include after harness.h.
 *
 *   - pk_spawn: start a copy of this program (fork + exec, argv[0] when it
 *     holds a '/', so valgrind runs the copy too) with a role and arguments;
 *   - pk_status: its exit status (128 + signal when killed);
 *   - pk_port_address: the socket address a remote port of `name` connects
 *     to, learnt from a real remote (getpeername), so a test can then talk
 *     to the port with raw syscalls whatever the naming scheme is;
 *   - pk_become: drop to a throwaway uid/gid (only as root);
 *   - pk_quiet: an error handler that keeps only the last code.
 */
#ifndef RL_PORTS_TESTKIT_H
#define RL_PORTS_TESTKIT_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <runloop/ports.h>

static const char *pk_self = "/proc/self/exe";

/* Call first in main(). */
static H_UNUSED void pk_init(int argc, char **argv)
{
    (void)argc;
    if (strchr(argv[0], '/')) pk_self = argv[0];
}

/* Starts "<self> role a b c" (NULL ends the list; at most 4 arguments). */
static H_UNUSED pid_t pk_spawn(const char *role, const char *a, const char *b, const char *c)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl(pk_self, pk_self, role, a, b, c, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static H_UNUSED int pk_status(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static volatile int pk_last_code;
static char pk_last_message[512];
static H_UNUSED void pk_quiet_handler(RLErrorCode code, const char *function, const char *message, void *info)
{
    (void)function; (void)info;
    pk_last_code = (int)code;
    snprintf(pk_last_message, sizeof pk_last_message, "%s", message);
}
static H_UNUSED void pk_quiet(void) { RLSetErrorHandler(pk_quiet_handler, NULL); }

/* The address behind a remote of `name`: 0 on success. */
static H_UNUSED int pk_port_address(const char *name, struct sockaddr_un *addr, socklen_t *len)
{
    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, name);
    if (!remote) return -1;
    int found = -1;
    for (int fd = 3; fd < 1024 && found < 0; fd++) {
        struct sockaddr_un a;
        socklen_t l = sizeof a;
        memset(&a, 0, sizeof a);
        if (getpeername(fd, (struct sockaddr *)&a, &l) == 0 && a.sun_family == AF_UNIX && l > sizeof(sa_family_t)) {
            *addr = a;
            *len = l;
            found = 0;
        }
    }
    RLRelease(remote);
    return found;
}

/* A new blocking connection to addr, or -1 (errno set). */
static H_UNUSED int pk_connect(const struct sockaddr_un *addr, socklen_t len)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return -1;
    if (connect(s, (const struct sockaddr *)addr, len) != 0) {
        int e = errno;
        close(s);
        errno = e;
        return -1;
    }
    return s;
}

/* Drops to uid/gid `id` (root only): 0 on success. */
static H_UNUSED int pk_become(unsigned id)
{
    if (setgroups(0, NULL) != 0) return -1;
    if (setresgid(id, id, id) != 0) return -1;
    return setresuid(id, id, id);
}

/* One frame of the ports' wire format (see MessagePortWire.swift): what a
 * raw client writes. */
static H_UNUSED size_t pk_frame(uint8_t *out, uint32_t kind, int32_t msgid, uint32_t seq,
                                const void *payload, uint32_t length)
{
    uint32_t magic = 0x524C4D50u, k = kind | (payload ? 0x100u : 0);
    memcpy(out, &magic, 4);
    memcpy(out + 4, &k, 4);
    memcpy(out + 8, &msgid, 4);
    memcpy(out + 12, &seq, 4);
    memcpy(out + 16, &length, 4);
    if (payload && length) memcpy(out + 20, payload, length);
    return 20 + (size_t)length;
}

/* Resident set size of this process in bytes. */
static H_UNUSED long pk_rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

#endif /* RL_PORTS_TESTKIT_H */
