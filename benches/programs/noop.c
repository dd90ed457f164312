/* noop: the C loop of the native-call figure. It calls dlr_bench__noop in
 * libdlr_bench.so through the PLT with the arguments every datalove backend passes
 * (rt, the value and its descriptor, the result and its descriptor) and checks the
 * status, as compiled datalove code does. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "datalove_rti.h"

uint8_t dlr_bench__noop(void *rt, const uint64_t *x, const dtlv_tydesc_t *x_td,
                        uint64_t *result_out, const dtlv_tydesc_t *result_td);

static const dtlv_tydesc_t U64 = {.kind = DTLV_KIND_U64, .flags = 1, .size = 8, .align = 8};

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    uint64_t x = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t y;
        if (dlr_bench__noop(NULL, &x, &U64, &y, &U64) != DTLV_STATUS_OK) {
            return 1;
        }
        x = y;
    }
    printf("%" PRIu64 "\n", x);
    return 0;
}
