/*
 * checkin.c — the check-in handshake between two threads with message
 * ports (the pattern the run-loop articles build with NSMachPort).
 *
 * The main thread serves port "example.checkin".  A worker thread opens its
 * own port, connects to the main thread's and checks in with its port's
 * name; the main thread answers "welcome", connects back, sends the worker
 * a job, reads the result and tells it to quit.
 *
 *   cc -std=gnu11 -I include examples/c/checkin.c -L build -lrunloop -lpthread \
 *      -Wl,-rpath,$PWD/build -o checkin && ./checkin
 */
#include <runloop/runloop.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { CHECK_IN = 1, JOB = 2, QUIT = 3 };

static char server_name[64], worker_name[64];
static RLMessagePortRef to_worker;

static RLDataRef text(const char *s) { return RLDataCreate(NULL, (const uint8_t *)s, (RLIndex)strlen(s)); }
static void print_data(const char *who, RLDataRef d)
{
    printf("%s \"%.*s\"\n", who, d ? (int)RLDataGetLength(d) : 0, d ? (const char *)RLDataGetBytePtr(d) : "");
}

/* Runs on the main thread once the check-in has been answered. */
static void give_job(void *info)
{
    (void)info;
    RLDataRef job = text("count to 3"), result = NULL;
    if (RLMessagePortSendRequest(to_worker, JOB, job, 1, 5, kRLRunLoopDefaultMode, &result) == kRLMessagePortSuccess)
        print_data("main: the worker answered", result);
    RLRelease(job);
    if (result) RLRelease(result);
    RLMessagePortSendRequest(to_worker, QUIT, NULL, 1, 0, NULL, NULL);  /* one-way */
    RLRunLoopStop(RLRunLoopGetCurrent());
}

static RLDataRef main_callout(RLMessagePortRef port, int32_t msgid, RLDataRef data, void *info)
{
    (void)port, (void)info;
    if (msgid != CHECK_IN) return NULL;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)RLDataGetLength(data), (const char *)RLDataGetBytePtr(data));
    printf("main: check-in from port %.*s\n", (int)(strrchr(name, '.') - name), name);  /* without the pid */
    to_worker = RLMessagePortCreateRemote(NULL, name);
    RLRunLoopPerformFunction(RLRunLoopGetCurrent(), kRLRunLoopDefaultMode, give_job, NULL);
    return text("welcome");
}

static RLDataRef worker_callout(RLMessagePortRef port, int32_t msgid, RLDataRef data, void *info)
{
    (void)port, (void)info;
    if (msgid == QUIT) {
        printf("worker: quitting\n");
        RLRunLoopStop(RLRunLoopGetCurrent());
        return NULL;
    }
    print_data("worker: got job", data);
    return text("1, 2, 3");
}

static void *worker(void *arg)
{
    (void)arg;
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef mine = RLMessagePortCreateLocal(NULL, worker_name, worker_callout, &ctx, NULL);
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, mine, 0);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), src, kRLRunLoopDefaultMode);

    RLMessagePortRef server = RLMessagePortCreateRemote(NULL, server_name);
    RLDataRef hello = text(worker_name), reply = NULL;
    if (RLMessagePortSendRequest(server, CHECK_IN, hello, 1, 5, kRLRunLoopDefaultMode, &reply) == kRLMessagePortSuccess)
        print_data("worker: main replied", reply);
    RLRelease(hello);
    if (reply) RLRelease(reply);
    RLRelease(server);

    RLRunLoopRun();  /* serve the main thread until it says QUIT */

    RLMessagePortInvalidate(mine);
    RLRelease(src);
    RLRelease(mine);
    return NULL;
}

int main(void)
{
    /* Names are per user; the pid keeps two copies of the example apart. */
    snprintf(server_name, sizeof server_name, "example.checkin.%d", (int)getpid());
    snprintf(worker_name, sizeof worker_name, "example.worker.%d", (int)getpid());

    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, server_name, main_callout, &ctx, NULL);
    if (!port) return 1;
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, port, 0);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), src, kRLRunLoopDefaultMode);

    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10, 0);
    pthread_join(t, NULL);
    printf("main: the worker's port is %s\n", RLMessagePortIsValid(to_worker) ? "still valid" : "gone");

    RLRelease(to_worker);
    RLMessagePortInvalidate(port);
    RLRelease(src);
    RLRelease(port);
    return 0;
}
