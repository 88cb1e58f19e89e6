/* ABI drift check, compiled (never run) by the ctest `abi_conflict_check`.
 *
 * The hand-written header declares every RL function first; the header the
 * Swift compiler generates for the core (-emit-clang-header-path, in
 * <build>/generated) then redeclares every @c entry point with the C types
 * Swift actually exports.  Any difference in a return or parameter type is
 * a redeclaration with an incompatible type: the compiler stops with
 * "conflicting types for 'RL...'".  Names present on only one side are the
 * job of symbols_check.sh.
 *
 * The three block entry points are the one deliberate difference: Swift
 * takes their block as a raw pointer (`void const *`), because Swift on
 * Linux copies a @convention(block) argument and never releases the copy;
 * the core copies, invokes and releases the block by hand (CopiedBlock in
 * Sources/RunLoopCore/CAPI/Support.swift).  A block parameter is passed as
 * a pointer to the block literal, so the ABI is the same.  Their Swift
 * declarations are renamed below and checked against that exact shape.
 *
 * Built with the toolchain's clang -fblocks (the generated header declares
 * block parameters without a __BLOCKS__ guard); the generated header comes
 * through -isystem so its own pragmas and extensions raise no warnings.
 * The opt-in <runloop/fastpath.h> comes last: its declaration of
 * RLInternalHotWordDirectory is checked like the others, and its macros,
 * defined after the generated header, rename none of its declarations. */
#include <runloop/runloop.h>

#define RLRunLoopPerformBlock swift_RLRunLoopPerformBlock
#define RLRunLoopObserverCreateWithHandler swift_RLRunLoopObserverCreateWithHandler
#define RLRunLoopTimerCreateWithHandler swift_RLRunLoopTimerCreateWithHandler
#include <RunLoopCore-Swift.h>
#undef RLRunLoopPerformBlock
#undef RLRunLoopObserverCreateWithHandler
#undef RLRunLoopTimerCreateWithHandler

#ifndef RUNLOOPCORE_SWIFT_H
#error "the generated RunLoopCore-Swift.h was not included"
#endif

#include <runloop/fastpath.h>

/* Same parameters as the header's, with the block as a pointer. */
void swift_RLRunLoopPerformBlock(RLRunLoopRef rl, RLTypeRef mode, void const *block);
RLRunLoopObserverRef swift_RLRunLoopObserverCreateWithHandler(RLAllocatorRef allocator, RLOptionFlags activities,
                                                              RLBoolean repeats, RLIndex order, void const *block);
RLRunLoopTimerRef swift_RLRunLoopTimerCreateWithHandler(RLAllocatorRef allocator, RLAbsoluteTime fireDate,
                                                        RLTimeInterval interval, RLOptionFlags flags, RLIndex order,
                                                        void const *block);
_Static_assert(sizeof(void (^)(void)) == sizeof(void const *), "a block parameter is one pointer");
