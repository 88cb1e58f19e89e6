/*
 * runloop/cfcompat.h — compile CoreFoundation run-loop code against runloop.
 *
 * Include this header instead of <CoreFoundation/CoreFoundation.h> and link
 * with -lrunloop: a C or C++ file written against Apple's CFRunLoop.h
 * compiles unchanged, as long as it uses only what is listed under
 * "Covered".  Every CF name below is a macro or typedef naming its RL twin
 * from <runloop/runloop.h>, so the behaviour is runloop's (documented
 * there), and the program exports or needs no CF symbol.
 *
 * Works with gcc and clang, C99 or later and C++; the *WithHandler and
 * CFRunLoopPerformBlock names exist only when blocks are on (clang -fblocks,
 * link BlocksRuntime).
 *
 * ----------------------------------------------------------------------------
 * Covered
 * ----------------------------------------------------------------------------
 *   Run loops   every function of CFRunLoop.h: CFRunLoopGetCurrent/GetMain,
 *               Run, RunInMode, Stop, WakeUp, IsWaiting, CopyCurrentMode,
 *               CopyAllModes, AddCommonMode, GetNextTimerFireDate,
 *               PerformBlock, Add/Remove/Contains Source/Observer/Timer,
 *               all CFRunLoopSource*, CFRunLoopObserver*, CFRunLoopTimer*
 *               functions (Create, CreateWithHandler, Get*, Set*, Invalidate,
 *               IsValid, GetContext, GetTypeID, tolerance), and the types
 *               CFRunLoopRef/SourceRef/ObserverRef/TimerRef, CFRunLoopMode,
 *               CFRunLoopRunResult, CFRunLoopActivity, the three contexts
 *               and the two callback types.
 *   Constants   kCFRunLoopDefaultMode, kCFRunLoopCommonModes,
 *               kCFRunLoopRunFinished/Stopped/TimedOut/HandledSource, the
 *               activity flags kCFRunLoopEntry ... kCFRunLoopAllActivities.
 *   MacTypes    UInt8, SInt8, UInt16, SInt16, UInt32, SInt32, UInt64,
 *               SInt64, Float32, Float64, Byte, SignedByte, UniChar,
 *               UniCharCount, UTF8Char, UTF16Char, UTF32Char, OSStatus,
 *               OSErr, FourCharCode, OSType: the types of CF on Linux
 *               (CFBase.h).  Not defined when <MacTypes.h> came first
 *               (__MACTYPES__) or when RUNLOOP_CFCOMPAT_NO_MACTYPES is
 *               defined before this header (bring your own then).
 *   Basics      Boolean, TRUE, FALSE, CFIndex, CFOptionFlags, CFHashCode,
 *               CFTypeID, CFTypeRef, CFTimeInterval, CFAbsoluteTime,
 *               CFAbsoluteTimeGetCurrent, CFRetain, CFRelease, CFGetTypeID,
 *               CFAllocatorRef, kCFAllocatorDefault (the allocator is
 *               ignored; any value may be passed).
 *   Strings     CFStringRef is `const char *`: mode names are C strings.
 *               CFSTR("name") gives a mode name (string literals only, as in
 *               CF).  Names made at run time: CFStringCreateWithCString
 *               (alloc, cstr, kCFStringEncodingUTF8 or ASCII) and
 *               CFStringCreateCopy return the library's interned copy
 *               (RLModeNameCreate): usable wherever a CFSTR is, equal
 *               texts give one pointer, CFRetain/CFRelease accept it (the
 *               name lives for the rest of the process, so releasing it
 *               while a loop runs in it is harmless; for mode and port
 *               names, not for text in bulk).  CFEqual (mode names by
 *               text, sources by CF's context rule, other objects by
 *               identity: RLEqual), CFStringCompare (bytes; the flag
 *               kCFCompareCaseInsensitive folds ASCII), CFStringGetLength
 *               (bytes: CF's count for ASCII), CFStringGetMaximumSizeFor-
 *               Encoding, CFStringGetCString(s, buf, size, encoding) and
 *               CFStringGetCStringPtr(s, encoding) (never NULL here; any
 *               encoding constant is accepted, the text is the UTF-8 given).
 *   Arrays      CFArrayRef, CFArrayGetCount, CFArrayGetValueAtIndex and
 *               CFArrayGetTypeID on what CFRunLoopCopyAllModes returns;
 *               CFArrayCreate(alloc, values, n, &kCFTypeArrayCallBacks)
 *               where values are mode names: the array is a mode list,
 *               usable as the mode argument of CFRunLoopPerformBlock (the
 *               block runs in any of the modes).  Release it with CFRelease.
 *   Linux ports CFRunLoopSourceContext1 (version 1: getPort returns a file
 *               descriptor, perform(info) runs while it is readable),
 *               CFFileDescriptor* (all of CFFileDescriptor.h), CFData
 *               basics (CFDataCreate, GetLength, GetBytePtr, GetTypeID) and
 *               CFMessagePort* (all of CFMessagePort.h, names are C
 *               strings; between threads and processes of one user) —
 *               which the real CF lacks on Linux.
 *   Sockets     CFSocket* (all of CFSocket.h but the name registry) and
 *               CFRange, CFRangeMake, CFDataGetBytes for their addresses;
 *               see the CFSocket section at the end of this file.
 *
 * Mode-name helpers (portable: the same names also work when this header is
 * included AFTER the real <CoreFoundation/CoreFoundation.h>, see below):
 *   Boolean CFCompatModeEqual(CFStringRef a, CFStringRef b)
 *       true when both name the same mode (equal text); two NULLs are
 *       equal, NULL and a name are not.  Use it (or CFEqual, for names
 *       that are not NULL) instead of `a == b` (runloop's names are
 *       compared by value, CF's are CFString objects).
 *   const char *CFCompatModeCString(CFStringRef mode, char *buf, size_t size)
 *       copies the mode's name (truncated to size - 1 bytes, always
 *       NUL-terminated) into buf and returns buf; "(null)" for NULL.  For
 *       printing: printf("%s", CFCompatModeCString(m, buf, sizeof buf)).
 *
 * ----------------------------------------------------------------------------
 * Not covered (does not compile, or means something else)
 * ----------------------------------------------------------------------------
 *   - Any other CoreFoundation type or function: other CFString
 *     functions (CFStringCreateWithFormat, mutable strings, CFShow ...),
 *     CFHash, CFCopyDescription, CFGetRetainCount, mutable arrays,
 *     dictionaries, CFNumber, CFDate, CFData beyond the four basics,
 *     CFMachPort, CFNotificationCenter, CFURL, CFBundle, Core Foundation's
 *     Objective-C and Swift bridging.  The most common of these are
 *     declared unavailable: using one is a compile-time error naming it
 *     ("CFShow is not covered by <runloop/cfcompat.h>"); define
 *     RUNLOOP_CFCOMPAT_ALLOW_UNCOVERED to bring your own.  A CFMessagePort
 *     name is a C string (CFSTR or a made name), not a CFString object.
 *   - CFSTR of anything but a string literal (as in CF).
 *   - Strings in encodings that are not UTF-8 compatible, and
 *     CFStringGetCStringPtr returning NULL (CF code that handles NULL by
 *     falling back to CFStringGetCString works unchanged).
 *   - The contexts' copyDescription member: runloop's returns a malloc()ed
 *     `char *`, CF's a CFStringRef.  Leave it NULL in portable code.
 *   - Comparing mode names with `==`: works in CF for the constants only,
 *     and never reliably in runloop; use CFEqual or CFCompatModeEqual.
 *   - CFArrayCreate of anything but mode names, callbacks other than
 *     kCFTypeArrayCallBacks / NULL (ignored: names are copied anyway).
 *   - Behaviour where runloop follows Apple's documentation and the Linux
 *     CF differs (timer tolerance is stored, Stop/WakeUp on the loop of an
 *     exited thread are harmless, ...): see docs/conformance.md.
 *
 * ----------------------------------------------------------------------------
 * Use with the real CoreFoundation
 * ----------------------------------------------------------------------------
 * When <CoreFoundation/CoreFoundation.h> (or CFRunLoop.h) was included
 * first, this header maps nothing and only defines CFCompatModeEqual and
 * CFCompatModeCString on top of CF's CFString, so one source can be built
 * against either library:
 *
 *     #ifdef USE_REAL_CF
 *     #include <CoreFoundation/CoreFoundation.h>
 *     #endif
 *     #include <runloop/cfcompat.h>
 */
#ifndef RUNLOOP_CFCOMPAT_H
#define RUNLOOP_CFCOMPAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define RUNLOOP_CFCOMPAT_UNUSED __attribute__((unused))
#else
#define RUNLOOP_CFCOMPAT_UNUSED
#endif

#ifdef __cplusplus
#define RUNLOOP_CFCOMPAT_INLINE static inline
#else
#define RUNLOOP_CFCOMPAT_INLINE static inline RUNLOOP_CFCOMPAT_UNUSED
#endif

#if defined(__COREFOUNDATION_CFRUNLOOP__)
/* ===========================================================================
 * The real CoreFoundation is in use: the portable helpers only.
 * ======================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

RUNLOOP_CFCOMPAT_INLINE Boolean CFCompatModeEqual(CFStringRef a, CFStringRef b)
{
    if (a == b) return 1;
    if (a == NULL || b == NULL) return 0;
    return CFStringCompare(a, b, 0) == kCFCompareEqualTo;
}

RUNLOOP_CFCOMPAT_INLINE const char *CFCompatModeCString(CFStringRef mode, char *buf, size_t size)
{
    if (buf == NULL || size == 0) return "";
    if (mode == NULL) {
        strncpy(buf, "(null)", size - 1);
        buf[size - 1] = '\0';
        return buf;
    }
    if (CFStringGetCString(mode, buf, (CFIndex)size, kCFStringEncodingUTF8)) return buf;
    /* too long: the longest prefix that fits */
    CFIndex used = 0;
    CFStringGetBytes(mode, CFRangeMake(0, CFStringGetLength(mode)), kCFStringEncodingUTF8, '?', 0,
                     (UInt8 *)buf, (CFIndex)size - 1, &used);
    buf[used] = '\0';
    return buf;
}

#ifdef __cplusplus
}
#endif

#else
/* ===========================================================================
 * runloop: every CF name is its RL twin.
 * ======================================================================== */

#include <runloop/runloop.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- MacTypes integers ---------------------------------------------------- */
/* Apple's fixed-size names (MacTypes.h; CF on Linux defines the same in
 * CFBase.h, with the same types).  Skipped when MacTypes.h was included
 * first (__MACTYPES__) or when RUNLOOP_CFCOMPAT_NO_MACTYPES is defined
 * (a program or library with names of its own: it then provides them).
 * Boolean is CF's, defined below in any case. */
#if !defined(__MACTYPES__) && !defined(RUNLOOP_CFCOMPAT_NO_MACTYPES) && !defined(RUNLOOP_CFCOMPAT_MACTYPES)
#define RUNLOOP_CFCOMPAT_MACTYPES 1
typedef unsigned char UInt8;
typedef signed char SInt8;
typedef unsigned short UInt16;
typedef signed short SInt16;
typedef unsigned int UInt32;
typedef signed int SInt32;
typedef uint64_t UInt64;
typedef int64_t SInt64;
typedef SInt32 OSStatus;
typedef SInt16 OSErr;
typedef float Float32;
typedef double Float64;
typedef UInt8 Byte;
typedef SInt8 SignedByte;
typedef unsigned short UniChar;
typedef unsigned long UniCharCount;
typedef UInt32 UTF32Char;
typedef UInt16 UTF16Char;
typedef UInt8 UTF8Char;
typedef UInt32 FourCharCode;
typedef FourCharCode OSType;
#endif

/* --- basic types ---------------------------------------------------------- */
typedef RLBoolean Boolean;
typedef RLIndex CFIndex;
typedef RLOptionFlags CFOptionFlags;
typedef RLHashCode CFHashCode;
typedef RLTypeID CFTypeID;
typedef RLTypeRef CFTypeRef;
typedef RLAllocatorRef CFAllocatorRef;
typedef RLTimeInterval CFTimeInterval;
typedef RLAbsoluteTime CFAbsoluteTime;
typedef const char *CFStringRef;          /* mode names only */
typedef RLArrayRef CFArrayRef;

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

#define kCFAllocatorDefault ((CFAllocatorRef)NULL)
/* A mode name from a string literal (CF's CFSTR takes literals only). */
#define CFSTR(literal) ((CFStringRef)("" literal ""))

#define CFRetain(obj)                  RLRetain(obj)
#define CFRelease(obj)                 RLRelease(obj)
#define CFGetTypeID(obj)               RLGetTypeID(obj)
#define CFAbsoluteTimeGetCurrent       RLAbsoluteTimeGetCurrent

/* --- strings (mode names) ------------------------------------------------- */
typedef unsigned int CFStringEncoding;
#define kCFStringEncodingASCII ((CFStringEncoding)0x0600)
#define kCFStringEncodingUTF8  ((CFStringEncoding)0x08000100)

/* CF's CFStringGetCString: copies the name and NUL into buffer; false (and
 * nothing useful in buffer) when it does not fit or str is NULL. */
RUNLOOP_CFCOMPAT_INLINE Boolean CFStringGetCString(CFStringRef str, char *buffer, CFIndex bufferSize,
                                                   CFStringEncoding encoding)
{
    (void)encoding;
    if (str == NULL || buffer == NULL || bufferSize <= 0) return 0;
    size_t len = strlen(str);
    if (len + 1 > (size_t)bufferSize) return 0;
    memcpy(buffer, str, len + 1);
    return 1;
}

/* CF's CFStringGetCStringPtr: the name's own text (never NULL for a name). */
RUNLOOP_CFCOMPAT_INLINE const char *CFStringGetCStringPtr(CFStringRef str, CFStringEncoding encoding)
{
    (void)encoding;
    return str;
}

/* --- strings made at run time (mode names) -------------------------------- */
/* A run-time CFString is the library's interned copy of its text (see
 * RLModeNameCreate): equal texts give the same pointer, it lives for the
 * rest of the process, CFRetain/CFRelease accept it and do nothing, and a
 * loop running in it is not affected by its release.  The allocator is
 * ignored; the encoding must be UTF-8 compatible (ASCII, UTF-8; the bytes
 * are kept as given).  NULL on bad input (NULL text, over 1024 bytes). */
RUNLOOP_CFCOMPAT_INLINE CFStringRef CFStringCreateWithCString(CFAllocatorRef alloc, const char *cStr,
                                                              CFStringEncoding encoding)
{
    (void)alloc;
    (void)encoding;
    return RLModeNameCreate(cStr);
}

/* CF's CFStringCreateCopy: a name with the same text (interned). */
RUNLOOP_CFCOMPAT_INLINE CFStringRef CFStringCreateCopy(CFAllocatorRef alloc, CFStringRef theString)
{
    (void)alloc;
    return RLModeNameCreate(theString);
}

/* The length in bytes (CF counts UTF-16 units: the same for ASCII). */
RUNLOOP_CFCOMPAT_INLINE CFIndex CFStringGetLength(CFStringRef theString)
{
    return theString ? (CFIndex)strlen(theString) : 0;
}

/* The buffer size CFStringGetCString may need for `length` characters. */
RUNLOOP_CFCOMPAT_INLINE CFIndex CFStringGetMaximumSizeForEncoding(CFIndex length, CFStringEncoding encoding)
{
    (void)encoding;
    return length * 4;
}

typedef CFIndex CFComparisonResult;
#define kCFCompareLessThan    ((CFComparisonResult)-1)
#define kCFCompareEqualTo     ((CFComparisonResult)0)
#define kCFCompareGreaterThan ((CFComparisonResult)1)
typedef CFOptionFlags CFStringCompareFlags;
#define kCFCompareCaseInsensitive ((CFStringCompareFlags)1)

/* CF's CFStringCompare by bytes (CF's order for ASCII names);
 * kCFCompareCaseInsensitive folds ASCII letters, other flags are ignored.
 * NULL sorts first (CF crashes there). */
RUNLOOP_CFCOMPAT_INLINE CFComparisonResult CFStringCompare(CFStringRef a, CFStringRef b,
                                                           CFStringCompareFlags options)
{
    if (a == NULL || b == NULL) return a == b ? kCFCompareEqualTo : (a == NULL ? kCFCompareLessThan : kCFCompareGreaterThan);
    for (;; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if ((options & kCFCompareCaseInsensitive) != 0) {
            if (x >= 'A' && x <= 'Z') x += 'a' - 'A';
            if (y >= 'A' && y <= 'Z') y += 'a' - 'A';
        }
        if (x != y) return x < y ? kCFCompareLessThan : kCFCompareGreaterThan;
        if (x == 0) return kCFCompareEqualTo;
    }
}

/* CF's CFEqual: mode names by text, sources by CF's context rule, other
 * objects by identity (RLEqual). */
#define CFEqual(a, b)                  RLEqual((RLTypeRef)(a), (RLTypeRef)(b))

/* --- arrays --------------------------------------------------------------- */
/* Only the address of kCFTypeArrayCallBacks is used (its members are
 * ignored: mode names are copied by the library). */
typedef struct {
    CFIndex version;
    const void *retain;
    const void *release;
    const void *copyDescription;
    const void *equal;
} CFArrayCallBacks;
static const CFArrayCallBacks kCFTypeArrayCallBacks RUNLOOP_CFCOMPAT_UNUSED = { 0, NULL, NULL, NULL, NULL };

#define CFArrayGetTypeID               RLArrayGetTypeID
#define CFArrayGetCount                RLArrayGetCount
#define CFArrayGetValueAtIndex         RLArrayGetValueAtIndex

/* A mode list (values are mode names) for CFRunLoopPerformBlock's mode
 * argument.  Caller releases.  NULL (with an error line) on bad input. */
RUNLOOP_CFCOMPAT_INLINE CFArrayRef CFArrayCreate(CFAllocatorRef allocator, const void **values,
                                                 CFIndex numValues, const CFArrayCallBacks *callBacks)
{
    (void)allocator;
    (void)callBacks;
    return RLArrayCreateWithModes((const RLRunLoopMode *)values, numValues);
}

/* --- run-loop types and constants ----------------------------------------- */
typedef RLRunLoopMode CFRunLoopMode;
typedef RLRunLoopRef CFRunLoopRef;
typedef RLRunLoopSourceRef CFRunLoopSourceRef;
typedef RLRunLoopObserverRef CFRunLoopObserverRef;
typedef RLRunLoopTimerRef CFRunLoopTimerRef;
typedef RLRunLoopRunResult CFRunLoopRunResult;
typedef RLRunLoopActivity CFRunLoopActivity;
typedef RLRunLoopSourceContext CFRunLoopSourceContext;
typedef RLRunLoopObserverContext CFRunLoopObserverContext;
typedef RLRunLoopTimerContext CFRunLoopTimerContext;
typedef RLRunLoopObserverCallBack CFRunLoopObserverCallBack;
typedef RLRunLoopTimerCallBack CFRunLoopTimerCallBack;

#define kCFRunLoopDefaultMode          kRLRunLoopDefaultMode
#define kCFRunLoopCommonModes          kRLRunLoopCommonModes
#define kCFRunLoopRunFinished          kRLRunLoopRunFinished
#define kCFRunLoopRunStopped           kRLRunLoopRunStopped
#define kCFRunLoopRunTimedOut          kRLRunLoopRunTimedOut
#define kCFRunLoopRunHandledSource     kRLRunLoopRunHandledSource
#define kCFRunLoopEntry                kRLRunLoopEntry
#define kCFRunLoopBeforeTimers         kRLRunLoopBeforeTimers
#define kCFRunLoopBeforeSources        kRLRunLoopBeforeSources
#define kCFRunLoopBeforeWaiting        kRLRunLoopBeforeWaiting
#define kCFRunLoopAfterWaiting         kRLRunLoopAfterWaiting
#define kCFRunLoopExit                 kRLRunLoopExit
#define kCFRunLoopAllActivities        kRLRunLoopAllActivities

/* --- run loops ------------------------------------------------------------ */
#define CFRunLoopGetTypeID             RLRunLoopGetTypeID
#define CFRunLoopGetCurrent            RLRunLoopGetCurrent
#define CFRunLoopGetMain               RLRunLoopGetMain
#define CFRunLoopCopyCurrentMode       RLRunLoopCopyCurrentMode
#define CFRunLoopCopyAllModes          RLRunLoopCopyAllModes
#define CFRunLoopAddCommonMode         RLRunLoopAddCommonMode
#define CFRunLoopGetNextTimerFireDate  RLRunLoopGetNextTimerFireDate
#define CFRunLoopRun                   RLRunLoopRun
#define CFRunLoopRunInMode             RLRunLoopRunInMode
#define CFRunLoopIsWaiting             RLRunLoopIsWaiting
#define CFRunLoopWakeUp                RLRunLoopWakeUp
#define CFRunLoopStop                  RLRunLoopStop
#define CFRunLoopContainsSource        RLRunLoopContainsSource
#define CFRunLoopAddSource             RLRunLoopAddSource
#define CFRunLoopRemoveSource          RLRunLoopRemoveSource
#define CFRunLoopContainsObserver      RLRunLoopContainsObserver
#define CFRunLoopAddObserver           RLRunLoopAddObserver
#define CFRunLoopRemoveObserver        RLRunLoopRemoveObserver
#define CFRunLoopContainsTimer         RLRunLoopContainsTimer
#define CFRunLoopAddTimer              RLRunLoopAddTimer
#define CFRunLoopRemoveTimer           RLRunLoopRemoveTimer
#if defined(__BLOCKS__)
/* mode: a mode name, kCFRunLoopCommonModes or a CFArrayCreate mode list */
#define CFRunLoopPerformBlock(rl, mode, block) \
    RLRunLoopPerformBlock((rl), (RLTypeRef)(mode), (block))
#endif

/* --- sources -------------------------------------------------------------- */
#define CFRunLoopSourceGetTypeID       RLRunLoopSourceGetTypeID
#define CFRunLoopSourceCreate          RLRunLoopSourceCreate
#define CFRunLoopSourceGetOrder        RLRunLoopSourceGetOrder
#define CFRunLoopSourceInvalidate      RLRunLoopSourceInvalidate
#define CFRunLoopSourceIsValid         RLRunLoopSourceIsValid
#define CFRunLoopSourceGetContext      RLRunLoopSourceGetContext
#define CFRunLoopSourceSignal          RLRunLoopSourceSignal

/* --- observers ------------------------------------------------------------ */
#define CFRunLoopObserverGetTypeID     RLRunLoopObserverGetTypeID
#define CFRunLoopObserverCreate        RLRunLoopObserverCreate
#if defined(__BLOCKS__)
#define CFRunLoopObserverCreateWithHandler RLRunLoopObserverCreateWithHandler
#endif
#define CFRunLoopObserverGetActivities RLRunLoopObserverGetActivities
#define CFRunLoopObserverDoesRepeat    RLRunLoopObserverDoesRepeat
#define CFRunLoopObserverGetOrder      RLRunLoopObserverGetOrder
#define CFRunLoopObserverInvalidate    RLRunLoopObserverInvalidate
#define CFRunLoopObserverIsValid       RLRunLoopObserverIsValid
#define CFRunLoopObserverGetContext    RLRunLoopObserverGetContext

/* --- timers --------------------------------------------------------------- */
#define CFRunLoopTimerGetTypeID        RLRunLoopTimerGetTypeID
#define CFRunLoopTimerCreate           RLRunLoopTimerCreate
#if defined(__BLOCKS__)
#define CFRunLoopTimerCreateWithHandler RLRunLoopTimerCreateWithHandler
#endif
#define CFRunLoopTimerGetNextFireDate  RLRunLoopTimerGetNextFireDate
#define CFRunLoopTimerSetNextFireDate  RLRunLoopTimerSetNextFireDate
#define CFRunLoopTimerGetInterval      RLRunLoopTimerGetInterval
#define CFRunLoopTimerDoesRepeat       RLRunLoopTimerDoesRepeat
#define CFRunLoopTimerGetOrder         RLRunLoopTimerGetOrder
#define CFRunLoopTimerInvalidate       RLRunLoopTimerInvalidate
#define CFRunLoopTimerIsValid          RLRunLoopTimerIsValid
#define CFRunLoopTimerGetContext       RLRunLoopTimerGetContext
#define CFRunLoopTimerGetTolerance     RLRunLoopTimerGetTolerance
#define CFRunLoopTimerSetTolerance     RLRunLoopTimerSetTolerance

/* --- version-1 sources, file descriptors, data, message ports ------------ */
#define CFRunLoopSourceContext1        RLRunLoopSourceContext1

typedef RLFileDescriptorRef CFFileDescriptorRef;
typedef RLFileDescriptorNativeDescriptor CFFileDescriptorNativeDescriptor;
typedef RLFileDescriptorCallBack CFFileDescriptorCallBack;
typedef RLFileDescriptorContext CFFileDescriptorContext;
#define kCFFileDescriptorReadCallBack  kRLFileDescriptorReadCallBack
#define kCFFileDescriptorWriteCallBack kRLFileDescriptorWriteCallBack
#define CFFileDescriptorGetTypeID      RLFileDescriptorGetTypeID
#define CFFileDescriptorCreate         RLFileDescriptorCreate
#define CFFileDescriptorGetNativeDescriptor RLFileDescriptorGetNativeDescriptor
#define CFFileDescriptorGetContext     RLFileDescriptorGetContext
#define CFFileDescriptorEnableCallBacks RLFileDescriptorEnableCallBacks
#define CFFileDescriptorDisableCallBacks RLFileDescriptorDisableCallBacks
#define CFFileDescriptorInvalidate     RLFileDescriptorInvalidate
#define CFFileDescriptorIsValid        RLFileDescriptorIsValid
#define CFFileDescriptorCreateRunLoopSource RLFileDescriptorCreateRunLoopSource

typedef RLDataRef CFDataRef;
#define CFDataGetTypeID                RLDataGetTypeID
#define CFDataCreate                   RLDataCreate
#define CFDataGetLength                RLDataGetLength
#define CFDataGetBytePtr               RLDataGetBytePtr

typedef RLMessagePortRef CFMessagePortRef;
typedef RLMessagePortContext CFMessagePortContext;
typedef RLMessagePortCallBack CFMessagePortCallBack;
typedef RLMessagePortInvalidationCallBack CFMessagePortInvalidationCallBack;
#define kCFMessagePortSuccess          kRLMessagePortSuccess
#define kCFMessagePortSendTimeout      kRLMessagePortSendTimeout
#define kCFMessagePortReceiveTimeout   kRLMessagePortReceiveTimeout
#define kCFMessagePortIsInvalid        kRLMessagePortIsInvalid
#define kCFMessagePortTransportError   kRLMessagePortTransportError
#define kCFMessagePortBecameInvalidError kRLMessagePortBecameInvalidError
#define CFMessagePortGetTypeID         RLMessagePortGetTypeID
#define CFMessagePortCreateLocal       RLMessagePortCreateLocal
#define CFMessagePortCreateRemote      RLMessagePortCreateRemote
#define CFMessagePortIsRemote          RLMessagePortIsRemote
#define CFMessagePortGetName           RLMessagePortGetName
#define CFMessagePortSetName           RLMessagePortSetName
#define CFMessagePortGetContext        RLMessagePortGetContext
#define CFMessagePortInvalidate        RLMessagePortInvalidate
#define CFMessagePortIsValid           RLMessagePortIsValid
#define CFMessagePortGetInvalidationCallBack RLMessagePortGetInvalidationCallBack
#define CFMessagePortSetInvalidationCallBack RLMessagePortSetInvalidationCallBack
#define CFMessagePortSendRequest       RLMessagePortSendRequest
#define CFMessagePortCreateRunLoopSource RLMessagePortCreateRunLoopSource

/* --- not covered: compile-time errors ------------------------------------ */
/* Commonly used CF names this header does not cover are declared
 * unavailable, so a port fails at compile time with a message naming the
 * call ("... is not covered by <runloop/cfcompat.h>") instead of an
 * implicit declaration or a link error.  Define
 * RUNLOOP_CFCOMPAT_ALLOW_UNCOVERED before including this header to skip
 * these declarations (a program that brings its own versions). */
#if !defined(RUNLOOP_CFCOMPAT_ALLOW_UNCOVERED)
#if defined(__has_attribute)
#if __has_attribute(unavailable)
#define RUNLOOP_CFCOMPAT_UNCOVERED(name) \
    __attribute__((unavailable(#name " is not covered by <runloop/cfcompat.h> (see its \"Not covered\" list)")))
#endif
#endif
#ifndef RUNLOOP_CFCOMPAT_UNCOVERED /* older compilers: a warning (an error with -Werror) */
#define RUNLOOP_CFCOMPAT_UNCOVERED(name) \
    __attribute__((deprecated(#name " is not covered by <runloop/cfcompat.h> (see its \"Not covered\" list)")))
#endif
struct RLCFCompatUncovered;
typedef struct RLCFCompatUncovered *CFDictionaryRef RUNLOOP_CFCOMPAT_UNCOVERED(CFDictionaryRef);
typedef struct RLCFCompatUncovered *CFMutableDictionaryRef RUNLOOP_CFCOMPAT_UNCOVERED(CFMutableDictionaryRef);
typedef struct RLCFCompatUncovered *CFMutableArrayRef RUNLOOP_CFCOMPAT_UNCOVERED(CFMutableArrayRef);
typedef struct RLCFCompatUncovered *CFMutableStringRef RUNLOOP_CFCOMPAT_UNCOVERED(CFMutableStringRef);
typedef struct RLCFCompatUncovered *CFNumberRef RUNLOOP_CFCOMPAT_UNCOVERED(CFNumberRef);
typedef struct RLCFCompatUncovered *CFBooleanRef RUNLOOP_CFCOMPAT_UNCOVERED(CFBooleanRef);
typedef struct RLCFCompatUncovered *CFDateRef RUNLOOP_CFCOMPAT_UNCOVERED(CFDateRef);
typedef struct RLCFCompatUncovered *CFErrorRef RUNLOOP_CFCOMPAT_UNCOVERED(CFErrorRef);
typedef struct RLCFCompatUncovered *CFURLRef RUNLOOP_CFCOMPAT_UNCOVERED(CFURLRef);
typedef struct RLCFCompatUncovered *CFMachPortRef RUNLOOP_CFCOMPAT_UNCOVERED(CFMachPortRef);
typedef struct RLCFCompatUncovered *CFNotificationCenterRef RUNLOOP_CFCOMPAT_UNCOVERED(CFNotificationCenterRef);
typedef struct RLCFCompatUncovered *CFSetRef RUNLOOP_CFCOMPAT_UNCOVERED(CFSetRef);
typedef struct RLCFCompatUncovered *CFMutableSetRef RUNLOOP_CFCOMPAT_UNCOVERED(CFMutableSetRef);
typedef struct RLCFCompatUncovered *CFUUIDRef RUNLOOP_CFCOMPAT_UNCOVERED(CFUUIDRef);
typedef struct RLCFCompatUncovered *CFBundleRef RUNLOOP_CFCOMPAT_UNCOVERED(CFBundleRef);
typedef struct RLCFCompatUncovered *CFPropertyListRef RUNLOOP_CFCOMPAT_UNCOVERED(CFPropertyListRef);
void CFStringGetTypeID(void) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringGetTypeID);
void CFDictionaryGetTypeID(void) RUNLOOP_CFCOMPAT_UNCOVERED(CFDictionaryGetTypeID);
void CFNumberGetTypeID(void) RUNLOOP_CFCOMPAT_UNCOVERED(CFNumberGetTypeID);
void CFBooleanGetTypeID(void) RUNLOOP_CFCOMPAT_UNCOVERED(CFBooleanGetTypeID);
void CFDateGetTypeID(void) RUNLOOP_CFCOMPAT_UNCOVERED(CFDateGetTypeID);
void CFMachPortGetTypeID(void) RUNLOOP_CFCOMPAT_UNCOVERED(CFMachPortGetTypeID);
void CFNotificationCenterGetLocalCenter(void) RUNLOOP_CFCOMPAT_UNCOVERED(CFNotificationCenterGetLocalCenter);
void CFNotificationCenterGetDarwinNotifyCenter(void) RUNLOOP_CFCOMPAT_UNCOVERED(CFNotificationCenterGetDarwinNotifyCenter);
void CFBundleGetMainBundle(void) RUNLOOP_CFCOMPAT_UNCOVERED(CFBundleGetMainBundle);
void CFShow(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFShow);
void CFShowStr(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFShowStr);
void CFCopyDescription(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFCopyDescription);
void CFHash(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFHash);
void CFGetRetainCount(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFGetRetainCount);
void CFAutorelease(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFAutorelease);
void CFMakeCollectable(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFMakeCollectable);
void CFStringCreateWithFormat(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringCreateWithFormat);
void CFStringCreateWithFormatAndArguments(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringCreateWithFormatAndArguments);
void CFStringCreateWithBytes(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringCreateWithBytes);
void CFStringCreateWithCharacters(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringCreateWithCharacters);
void CFStringCreateWithCStringNoCopy(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringCreateWithCStringNoCopy);
void CFStringCreateMutable(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringCreateMutable);
void CFStringCreateMutableCopy(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringCreateMutableCopy);
void CFStringAppend(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringAppend);
void CFStringAppendCString(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringAppendCString);
void CFStringAppendFormat(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringAppendFormat);
void CFStringFind(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringFind);
void CFStringHasPrefix(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringHasPrefix);
void CFStringHasSuffix(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringHasSuffix);
void CFStringGetIntValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringGetIntValue);
void CFStringGetDoubleValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringGetDoubleValue);
void CFStringGetCharacters(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringGetCharacters);
void CFStringGetBytes(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringGetBytes);
void CFStringCreateArrayBySeparatingStrings(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFStringCreateArrayBySeparatingStrings);
void CFArrayCreateMutable(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFArrayCreateMutable);
void CFArrayAppendValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFArrayAppendValue);
void CFArrayRemoveValueAtIndex(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFArrayRemoveValueAtIndex);
void CFArrayContainsValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFArrayContainsValue);
void CFDictionaryCreate(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFDictionaryCreate);
void CFDictionaryCreateMutable(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFDictionaryCreateMutable);
void CFDictionaryGetValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFDictionaryGetValue);
void CFDictionarySetValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFDictionarySetValue);
void CFDictionaryAddValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFDictionaryAddValue);
void CFDictionaryRemoveValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFDictionaryRemoveValue);
void CFDictionaryGetCount(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFDictionaryGetCount);
void CFNumberCreate(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFNumberCreate);
void CFNumberGetValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFNumberGetValue);
void CFBooleanGetValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFBooleanGetValue);
void CFDateCreate(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFDateCreate);
void CFDateGetAbsoluteTime(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFDateGetAbsoluteTime);
void CFMachPortCreate(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFMachPortCreate);
void CFMachPortCreateWithPort(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFMachPortCreateWithPort);
void CFMachPortCreateRunLoopSource(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFMachPortCreateRunLoopSource);
void CFMachPortInvalidate(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFMachPortInvalidate);
void CFNotificationCenterAddObserver(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFNotificationCenterAddObserver);
void CFNotificationCenterRemoveObserver(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFNotificationCenterRemoveObserver);
void CFNotificationCenterPostNotification(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFNotificationCenterPostNotification);
void CFUUIDCreate(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFUUIDCreate);
void CFUUIDCreateString(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFUUIDCreateString);
void CFURLCreateWithString(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFURLCreateWithString);
void CFURLCreateWithFileSystemPath(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFURLCreateWithFileSystemPath);
void CFErrorCreate(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFErrorCreate);
void CFErrorCopyDescription(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFErrorCopyDescription);
void CFPreferencesCopyAppValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFPreferencesCopyAppValue);
void CFPreferencesSetAppValue(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFPreferencesSetAppValue);
void CFBundleGetValueForInfoDictionaryKey(const void *, ...) RUNLOOP_CFCOMPAT_UNCOVERED(CFBundleGetValueForInfoDictionaryKey);
extern const void *const kCFBooleanTrue RUNLOOP_CFCOMPAT_UNCOVERED(kCFBooleanTrue);
extern const void *const kCFBooleanFalse RUNLOOP_CFCOMPAT_UNCOVERED(kCFBooleanFalse);
extern const void *const kCFTypeDictionaryKeyCallBacks RUNLOOP_CFCOMPAT_UNCOVERED(kCFTypeDictionaryKeyCallBacks);
extern const void *const kCFTypeDictionaryValueCallBacks RUNLOOP_CFCOMPAT_UNCOVERED(kCFTypeDictionaryValueCallBacks);
extern const void *const kCFNull RUNLOOP_CFCOMPAT_UNCOVERED(kCFNull);
#endif /* RUNLOOP_CFCOMPAT_ALLOW_UNCOVERED */

/* --- portable mode-name helpers (see the top of this file) ---------------- */
RUNLOOP_CFCOMPAT_INLINE Boolean CFCompatModeEqual(CFStringRef a, CFStringRef b)
{
    if (a == b) return 1;
    if (a == NULL || b == NULL) return 0;
    return strcmp(a, b) == 0;
}

RUNLOOP_CFCOMPAT_INLINE const char *CFCompatModeCString(CFStringRef mode, char *buf, size_t size)
{
    if (buf == NULL || size == 0) return "";
    strncpy(buf, mode == NULL ? "(null)" : mode, size - 1);
    buf[size - 1] = '\0';
    return buf;
}

/* ===========================================================================
 * CFSocket (all of CFSocket.h but the name registry): every name is its
 * RLSocket twin from <runloop/socket.h>.  Addresses are CFData (RLData)
 * holding a struct sockaddr, as in CF; IPv4, IPv6 and Unix-domain sockets.
 * ======================================================================== */
typedef RLSocketRef CFSocketRef;
typedef RLSocketNativeHandle CFSocketNativeHandle;
typedef RLSocketError CFSocketError;
typedef RLSocketCallBackType CFSocketCallBackType;
typedef RLSocketCallBack CFSocketCallBack;
typedef RLSocketContext CFSocketContext;
typedef RLSocketSignature CFSocketSignature;
#define kCFSocketSuccess               kRLSocketSuccess
#define kCFSocketError                 kRLSocketError
#define kCFSocketTimeout               kRLSocketTimeout
#define kCFSocketNoCallBack            kRLSocketNoCallBack
#define kCFSocketReadCallBack          kRLSocketReadCallBack
#define kCFSocketAcceptCallBack        kRLSocketAcceptCallBack
#define kCFSocketDataCallBack          kRLSocketDataCallBack
#define kCFSocketConnectCallBack       kRLSocketConnectCallBack
#define kCFSocketWriteCallBack         kRLSocketWriteCallBack
#define kCFSocketAutomaticallyReenableReadCallBack   kRLSocketAutomaticallyReenableReadCallBack
#define kCFSocketAutomaticallyReenableAcceptCallBack kRLSocketAutomaticallyReenableAcceptCallBack
#define kCFSocketAutomaticallyReenableDataCallBack   kRLSocketAutomaticallyReenableDataCallBack
#define kCFSocketAutomaticallyReenableWriteCallBack  kRLSocketAutomaticallyReenableWriteCallBack
#define kCFSocketLeaveErrors           kRLSocketLeaveErrors
#define kCFSocketCloseOnInvalidate     kRLSocketCloseOnInvalidate
#define CFSocketGetTypeID              RLSocketGetTypeID
#define CFSocketCreate                 RLSocketCreate
#define CFSocketCreateWithNative       RLSocketCreateWithNative
#define CFSocketCreateWithSocketSignature RLSocketCreateWithSocketSignature
#define CFSocketCreateConnectedToSocketSignature RLSocketCreateConnectedToSocketSignature
#define CFSocketSetAddress             RLSocketSetAddress
#define CFSocketConnectToAddress       RLSocketConnectToAddress
#define CFSocketInvalidate             RLSocketInvalidate
#define CFSocketIsValid                RLSocketIsValid
#define CFSocketCopyAddress            RLSocketCopyAddress
#define CFSocketCopyPeerAddress        RLSocketCopyPeerAddress
#define CFSocketGetContext             RLSocketGetContext
#define CFSocketGetNative              RLSocketGetNative
#define CFSocketCreateRunLoopSource    RLSocketCreateRunLoopSource
#define CFSocketGetSocketFlags         RLSocketGetSocketFlags
#define CFSocketSetSocketFlags         RLSocketSetSocketFlags
#define CFSocketDisableCallBacks       RLSocketDisableCallBacks
#define CFSocketEnableCallBacks        RLSocketEnableCallBacks
#define CFSocketSendData               RLSocketSendData

/* CFData access used with socket addresses: CFRange, CFRangeMake and
 * CFDataGetBytes (copies range.length bytes from range.location into
 * buffer; a range outside the data copies only the part inside it, where
 * CF would assert). */
#ifndef RUNLOOP_CFCOMPAT_HAVE_CFRANGE
#define RUNLOOP_CFCOMPAT_HAVE_CFRANGE 1
typedef struct {
    CFIndex location;
    CFIndex length;
} CFRange;

RUNLOOP_CFCOMPAT_INLINE CFRange CFRangeMake(CFIndex location, CFIndex length)
{
    CFRange range;
    range.location = location;
    range.length = length;
    return range;
}
#endif

RUNLOOP_CFCOMPAT_INLINE void CFDataGetBytes(CFDataRef theData, CFRange range, uint8_t *buffer)
{
    CFIndex total = RLDataGetLength(theData);
    const uint8_t *bytes = RLDataGetBytePtr(theData);
    if (bytes == NULL || buffer == NULL || range.location < 0 || range.length <= 0 || range.location >= total) return;
    if (range.length > total - range.location) range.length = total - range.location;
    memcpy(buffer, bytes + range.location, (size_t)range.length);
}
/* ======================================================== end of CFSocket */

#ifdef __cplusplus
}
#endif

#endif /* real CF or runloop */
#endif /* RUNLOOP_CFCOMPAT_H */
