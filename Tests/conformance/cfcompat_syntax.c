/*
 * cfcompat_syntax.c — compile-only check of <runloop/cfcompat.h>: CF-style
 * code using every name the header covers builds with gcc (C99, no blocks),
 * g++ and clang -fblocks (C and C++), warnings as errors.
 * cmake/Conformance.cmake runs it as the conformance_cfcompat_* tests.
 */
#include <runloop/cfcompat.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static void perform(void *info) { (void)info; }
static void sched(void *info, CFRunLoopRef rl, CFRunLoopMode mode) { (void)info; (void)rl; (void)mode; }
static Boolean equal(const void *a, const void *b) { return a == b; }
static CFHashCode hash(const void *a) { return (CFHashCode)(size_t)a; }
static const void *retain(const void *info) { return info; }
static void release(const void *info) { (void)info; }
static void on_timer(CFRunLoopTimerRef t, void *info) { (void)t; (void)info; }
static void on_activity(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info) { (void)o; (void)a; (void)info; }

/* CFSocket (the CFSocket section of cfcompat.h). */
static void on_socket(CFSocketRef s, CFSocketCallBackType type, CFDataRef address, const void *data, void *info)
{
    (void)s; (void)type; (void)address; (void)data; (void)info;
}

static void use_sockets(CFRunLoopRef rl, CFStringRef mode)
{
    CFSocketContext ctx = { 0, NULL, retain, release, NULL };
    CFOptionFlags types = kCFSocketNoCallBack | kCFSocketReadCallBack | kCFSocketAcceptCallBack |
                          kCFSocketDataCallBack | kCFSocketConnectCallBack | kCFSocketWriteCallBack;
    CFSocketRef s = CFSocketCreate(kCFAllocatorDefault, PF_INET, SOCK_STREAM, 0, types, on_socket, &ctx);
    CFSocketNativeHandle fd = CFSocketGetNative(s);
    CFSocketRef same = CFSocketCreateWithNative(kCFAllocatorDefault, fd, kCFSocketDataCallBack, on_socket, NULL);
    struct sockaddr sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_family = AF_INET;
    CFDataRef address = CFDataCreate(kCFAllocatorDefault, (const uint8_t *)&sa, (CFIndex)sizeof sa);
    CFSocketSignature sig = { PF_INET, SOCK_STREAM, 0, address };
    CFSocketRef a = CFSocketCreateWithSocketSignature(kCFAllocatorDefault, &sig, kCFSocketAcceptCallBack, on_socket, NULL);
    CFSocketRef b = CFSocketCreateConnectedToSocketSignature(kCFAllocatorDefault, &sig, kCFSocketNoCallBack, NULL, NULL, 1.0);
    CFSocketError e = CFSocketSetAddress(s, address);
    Boolean bad = e == kCFSocketError || e == kCFSocketTimeout || e == kCFSocketSuccess;
    e = CFSocketConnectToAddress(s, address, -1.0);
    e = CFSocketSendData(s, NULL, address, 1.0);
    CFOptionFlags flags = CFSocketGetSocketFlags(s) | kCFSocketAutomaticallyReenableReadCallBack |
                          kCFSocketAutomaticallyReenableAcceptCallBack | kCFSocketAutomaticallyReenableDataCallBack |
                          kCFSocketAutomaticallyReenableWriteCallBack | kCFSocketLeaveErrors | kCFSocketCloseOnInvalidate;
    CFSocketSetSocketFlags(s, flags);
    CFSocketDisableCallBacks(s, kCFSocketReadCallBack);
    CFSocketEnableCallBacks(s, kCFSocketReadCallBack);
    CFRunLoopSourceRef src = CFSocketCreateRunLoopSource(kCFAllocatorDefault, s, 0);
    if (src) {
        CFRunLoopAddSource(rl, src, mode);
        CFRelease(src);
    }
    CFDataRef local = CFSocketCopyAddress(s), peer = CFSocketCopyPeerAddress(s);
    if (local) {
        uint8_t back[128];
        CFIndex n = CFDataGetLength(local);
        CFDataGetBytes(local, CFRangeMake(0, n < 128 ? n : 128), back);
        CFRelease(local);
    }
    if (peer) CFRelease(peer);
    CFSocketGetContext(s, &ctx);
    CFSocketCallBackType t = kCFSocketDataCallBack;
    printf("%d %d %d %lu %lu\n", bad, (int)e, CFSocketIsValid(s), (unsigned long)t, (unsigned long)CFSocketGetTypeID());
    if (a) CFRelease(a);
    if (b) CFRelease(b);
    if (same) CFRelease(same);
    CFRelease(address);
    CFSocketInvalidate(s);
    CFRelease(s);
}

/* The canonical CFMessagePort callback, as Apple's samples write it. */
static CFDataRef on_message(CFMessagePortRef local, SInt32 msgid, CFDataRef data, void *info)
{
    (void)local;
    (void)info;
    const UInt8 *bytes = data ? CFDataGetBytePtr(data) : NULL;
    CFIndex length = data ? CFDataGetLength(data) : 0;
    UInt8 reply[2] = { (UInt8)msgid, (UInt8)(bytes && length > 0 ? bytes[0] : 0) };
    return CFDataCreate(kCFAllocatorDefault, reply, (CFIndex)sizeof reply);
}

/* Every MacTypes integer the header provides, at its CF size. */
static int mactypes_sizes(void)
{
    UInt8 u8 = 0; SInt8 s8 = 0; UInt16 u16 = 0; SInt16 s16 = 0; UInt32 u32 = 0; SInt32 s32 = 0;
    UInt64 u64 = 0; SInt64 s64 = 0; Float32 f32 = 0; Float64 f64 = 0; Byte b = 0; SignedByte sb = 0;
    UniChar uc = 0; UTF8Char c8 = 0; UTF16Char c16 = 0; UTF32Char c32 = 0; OSStatus st = 0; OSErr err = 0;
    OSType type = 0; FourCharCode four = 0; Boolean yes = TRUE;
    return (int)(sizeof u8 + sizeof s8 + sizeof b + sizeof sb + sizeof c8 == 5 &&
                 sizeof u16 + sizeof s16 + sizeof uc + sizeof c16 + sizeof err == 10 &&
                 sizeof u32 + sizeof s32 + sizeof c32 + sizeof st + sizeof type + sizeof four + sizeof f32 == 28 &&
                 sizeof u64 + sizeof s64 + sizeof f64 == 24 && yes);
}

int main(void)
{
    CFMessagePortContext pctx = { 0, NULL, NULL, NULL, NULL };
    Boolean should_free = FALSE;
    CFMessagePortRef port = CFMessagePortCreateLocal(kCFAllocatorDefault, CFSTR("syntax.port"), on_message,
                                                     &pctx, &should_free);
    if (port) {
        CFMessagePortInvalidate(port);
        CFRelease(port);
    }
    if (!mactypes_sizes()) return 1;
    /* mode names made at run time, compared, printed, released */
    char built[32];
    snprintf(built, sizeof built, "mode-%d", 7);
    CFStringRef made = CFStringCreateWithCString(kCFAllocatorDefault, built, kCFStringEncodingUTF8);
    CFStringRef copy = CFStringCreateCopy(kCFAllocatorDefault, made);
    CFRetain(copy);
    CFRelease(copy);
    char text[64];
    const char *p = CFStringGetCStringPtr(made, kCFStringEncodingUTF8);
    if (p == NULL && CFStringGetCString(made, text, (CFIndex)sizeof text, kCFStringEncodingUTF8)) p = text;
    CFIndex room = CFStringGetMaximumSizeForEncoding(CFStringGetLength(made), kCFStringEncodingUTF8) + 1;
    CFComparisonResult order_of = CFStringCompare(made, CFSTR("MODE-7"), kCFCompareCaseInsensitive);
    if (CFEqual(made, copy) && order_of == kCFCompareEqualTo && room > 0 && p)
        CFRunLoopRunInMode(copy, 0, TRUE);
    CFRelease(made);
    CFRelease(copy);
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopRef main_rl = CFRunLoopGetMain();
    CFIndex order = 0;
    CFOptionFlags flags = kCFRunLoopEntry | kCFRunLoopBeforeTimers | kCFRunLoopBeforeSources |
                          kCFRunLoopBeforeWaiting | kCFRunLoopAfterWaiting | kCFRunLoopExit;
    CFAllocatorRef alloc = kCFAllocatorDefault;
    CFStringRef mode = CFSTR("my-mode");
    CFRunLoopSourceContext sctx = { 0, NULL, retain, release, NULL, equal, hash, sched, sched, perform };
    CFRunLoopSourceRef s = CFRunLoopSourceCreate(alloc, order, &sctx);
    CFRunLoopObserverContext octx = { 0, NULL, retain, release, NULL };
    CFRunLoopObserverRef o = CFRunLoopObserverCreate(alloc, flags | kCFRunLoopAllActivities, TRUE, 0, on_activity, &octx);
    CFRunLoopTimerContext tctx = { 0, NULL, retain, release, NULL };
    CFAbsoluteTime when = CFAbsoluteTimeGetCurrent() + 0.01;
    CFTimeInterval every = 0;
    CFRunLoopTimerRef t = CFRunLoopTimerCreate(alloc, when, every, 0, 0, on_timer, &tctx);
    CFRunLoopAddSource(rl, s, mode);
    CFRunLoopAddObserver(rl, o, kCFRunLoopCommonModes);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    CFRunLoopAddCommonMode(rl, mode);
    Boolean in = CFRunLoopContainsSource(rl, s, mode) && CFRunLoopContainsObserver(rl, o, mode) &&
                 CFRunLoopContainsTimer(rl, t, mode);
    CFRunLoopSourceSignal(s);
    CFRunLoopWakeUp(rl);
    CFRunLoopRunResult r = CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, FALSE);
    Boolean known = r == kCFRunLoopRunFinished || r == kCFRunLoopRunStopped ||
                    r == kCFRunLoopRunTimedOut || r == kCFRunLoopRunHandledSource;
    CFStringRef cur = CFRunLoopCopyCurrentMode(rl);
    if (cur) CFRelease(cur);
    CFArrayRef all = CFRunLoopCopyAllModes(rl);
    char buf[64];
    for (CFIndex i = 0; i < CFArrayGetCount(all); i++) {
        CFStringRef m = (CFStringRef)CFArrayGetValueAtIndex(all, i);
        if (CFCompatModeEqual(m, mode) && CFStringGetCString(m, buf, sizeof buf, kCFStringEncodingUTF8))
            printf("%s %s\n", buf, CFStringGetCStringPtr(m, kCFStringEncodingASCII));
    }
    printf("%s\n", CFCompatModeCString(mode, buf, sizeof buf));
    const void *names[1] = { mode };
    CFArrayRef list = CFArrayCreate(alloc, names, 1, &kCFTypeArrayCallBacks);
#if defined(__BLOCKS__)
    CFRunLoopPerformBlock(rl, list, ^{ CFRunLoopStop(CFRunLoopGetCurrent()); });
    CFRunLoopTimerRef bt = CFRunLoopTimerCreateWithHandler(alloc, when, 0, 0, 0, ^(CFRunLoopTimerRef x) { (void)x; });
    CFRunLoopObserverRef bo = CFRunLoopObserverCreateWithHandler(alloc, flags, FALSE, 0,
                                                                 ^(CFRunLoopObserverRef x, CFRunLoopActivity a) { (void)x; (void)a; });
    CFRelease(bt);
    CFRelease(bo);
#endif
    CFRelease(list);
    CFRelease(all);
    CFRunLoopSourceGetContext(s, &sctx);
    CFRunLoopObserverGetContext(o, &octx);
    CFRunLoopTimerGetContext(t, &tctx);
    CFTypeID ids = CFRunLoopGetTypeID() + CFRunLoopSourceGetTypeID() + CFRunLoopObserverGetTypeID() +
                   CFRunLoopTimerGetTypeID() + CFArrayGetTypeID() + CFGetTypeID(s);
    CFHashCode h = (CFHashCode)ids;
    CFRunLoopTimerSetNextFireDate(t, CFRunLoopTimerGetNextFireDate(t) + CFRunLoopTimerGetInterval(t));
    CFRunLoopTimerSetTolerance(t, CFRunLoopTimerGetTolerance(t));
    CFTypeRef kept = CFRetain(main_rl);
    CFRelease(kept);
    printf("%d %d %ld %lu %d %d %ld %ld %lu %d %d %d %f\n", in, known, (long)CFRunLoopSourceGetOrder(s),
           (unsigned long)CFRunLoopObserverGetActivities(o), CFRunLoopObserverDoesRepeat(o),
           CFRunLoopTimerDoesRepeat(t), (long)CFRunLoopObserverGetOrder(o), (long)CFRunLoopTimerGetOrder(t),
           (unsigned long)h, CFRunLoopIsWaiting(rl), CFRunLoopSourceIsValid(s) && CFRunLoopObserverIsValid(o),
           CFRunLoopTimerIsValid(t), CFRunLoopGetNextTimerFireDate(rl, mode));
    CFRunLoopRemoveSource(rl, s, mode);
    CFRunLoopRemoveObserver(rl, o, kCFRunLoopCommonModes);
    CFRunLoopRemoveTimer(rl, t, kCFRunLoopDefaultMode);
    CFRunLoopSourceInvalidate(s);
    CFRunLoopObserverInvalidate(o);
    CFRunLoopTimerInvalidate(t);
    CFRelease(s);
    CFRelease(o);
    CFRelease(t);
    if (0) CFRunLoopRun();
    if (0) use_sockets(rl, mode);
    return 0;
}
