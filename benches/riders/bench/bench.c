/*
 * bench.c -- the benchmarks' C rider. `noop` reads a u64 and writes it plus one: the
 * whole cost of calling it is the call. The C peer (programs/noop.c) and LuaJIT's FFI
 * (programs/noop.lua) call this same function in this same library, so the
 * native-call figure compares call paths, not bodies.
 */
#include "datalove_rti.h"

DTLV_EXPORT_RIDER(bench)

uint8_t dlr_bench__noop(void *rt, const uint64_t *x, const dtlv_tydesc_t *x_td,
                        uint64_t *result_out, const dtlv_tydesc_t *result_td) {
    (void)rt;
    (void)x_td;
    (void)result_td;
    *result_out = *x + 1;
    return DTLV_STATUS_OK;
}
