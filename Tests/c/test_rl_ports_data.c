/*
 * test_rl_ports_data — RLData, the payload of message ports (runloop-only;
 * trace written from include/runloop/ports.h):
 *   - RLDataCreate copies the bytes: changing the source afterwards does
 *     not change the data; length and bytes read back;
 *   - empty data (NULL bytes, length 0) has length 0 and a non-NULL pointer;
 *   - negative length, and NULL bytes with a positive length, are refused;
 *   - the type ID is RLDataGetTypeID, distinct from the other types; a
 *     data handle passed where a port is expected is refused;
 *   - after the last release the handle is stale (refused, no crash).
 */
#include "harness.h"

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_data tests runloop-only functions"
#endif

static void scenario(void)
{
    uint8_t bytes[5] = { 'h', 'e', 'l', 'l', 'o' };
    RLDataRef d = RLDataCreate(NULL, bytes, 5);
    bytes[0] = 'J';
    TRACE("length %ld, bytes \"%.*s\"", (long)RLDataGetLength(d), (int)RLDataGetLength(d), (const char *)RLDataGetBytePtr(d));
    TRACE("type is RLData: %s; distinct from ports, threads, sources: %s",
          yes_no(RLGetTypeID(d) == RLDataGetTypeID()),
          yes_no(RLDataGetTypeID() != RLMessagePortGetTypeID() && RLDataGetTypeID() != RLThreadGetTypeID()
                 && RLDataGetTypeID() != RLRunLoopSourceGetTypeID() && RLMessagePortGetTypeID() != RLThreadGetTypeID()));
    TRACE("retain count %ld", (long)RLGetRetainCount(d));

    RLDataRef empty = RLDataCreate(NULL, NULL, 0);
    TRACE("empty: length %ld, pointer non-NULL %s", (long)RLDataGetLength(empty), yes_no(RLDataGetBytePtr(empty) != NULL));
    RLRelease(empty);

    fprintf(stderr, "(error lines about a negative length, NULL bytes, a wrong type and a stale handle are expected)\n");
    TRACE("negative length refused: %s", yes_no(RLDataCreate(NULL, bytes, -1) == NULL));
    TRACE("NULL bytes with length 3 refused: %s", yes_no(RLDataCreate(NULL, NULL, 3) == NULL));
    TRACE("data passed as a port: valid %s", yes_no(RLMessagePortIsValid((RLMessagePortRef)d)));
    RLRelease(d);
    TRACE("released data: length %ld, bytes NULL %s", (long)RLDataGetLength(d), yes_no(RLDataGetBytePtr(d) == NULL));
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_ports_data") | harness_failures;
}
