/*
 * A CoreFoundation program (CF names only, CF's own include), built
 * against an *installed* runloop through its CoreFoundation.h: once with
 * `pkg-config runloop-cf`, once with find_package(runloop) and the
 * runloop::cfcompat target (and from add_subdirectory).  Prints a fixed
 * transcript that Tests/consumer/check_consumer.sh compares with
 * expected_cf.txt.  The message port answers a request sent to itself,
 * as CF's does (PyObjC's CFMessagePort tests rely on it).
 */
#include <CoreFoundation/CoreFoundation.h>

static int fired;

static void tick(CFRunLoopTimerRef timer, void *info)
{
    (void)timer, (void)info;
    printf("tick %d\n", ++fired);
    if (fired == 2) CFRunLoopStop(CFRunLoopGetCurrent());
}

static CFDataRef answer(CFMessagePortRef local, SInt32 msgid, CFDataRef data, void *info)
{
    (void)local, (void)info;
    printf("request %d \"%.*s\"\n", (int)msgid, (int)CFDataGetLength(data), (const char *)CFDataGetBytePtr(data));
    return CFDataCreate(kCFAllocatorDefault, (const UInt8 *)"pong", 4);
}

int main(void)
{
    CFRunLoopTimerRef timer = CFRunLoopTimerCreate(kCFAllocatorDefault, CFAbsoluteTimeGetCurrent(), 0.001, 0, 0,
                                                   tick, NULL);
    CFRunLoopAddTimer(CFRunLoopGetCurrent(), timer, kCFRunLoopDefaultMode);
    SInt32 result = CFRunLoopRunInMode(kCFRunLoopDefaultMode, 10, false);
    printf("result %s\n", result == kCFRunLoopRunStopped ? "stopped" : "UNEXPECTED");
    CFRunLoopTimerInvalidate(timer);
    CFRelease(timer);

    CFMessagePortContext context = { 0, NULL, NULL, NULL, NULL };
    Boolean shouldFreeInfo = true;
    CFMessagePortRef port = CFMessagePortCreateLocal(kCFAllocatorDefault, NULL, answer, &context, &shouldFreeInfo);
    CFDataRef request = CFDataCreate(kCFAllocatorDefault, (const UInt8 *)"ping", 4);
    CFDataRef reply = NULL;
    SInt32 status = port ? CFMessagePortSendRequest(port, 7, request, 1, 1, kCFRunLoopDefaultMode, &reply) : -99;
    printf("status %d, reply \"%.*s\"\n", (int)status, reply ? (int)CFDataGetLength(reply) : 4,
           reply ? (const char *)CFDataGetBytePtr(reply) : "NULL");
    if (reply) CFRelease(reply);
    CFRelease(request);
    if (port) {
        CFMessagePortInvalidate(port);
        CFRelease(port);
    }
    return result == kCFRunLoopRunStopped && status == kCFMessagePortSuccess && !shouldFreeInfo ? 0 : 1;
}
