/* cgreet.c: the natives rider.dli declares, in C (docs/riders.md). */
#include <stdlib.h>
#include <string.h>

#include "datalove_rti.h"
#include "dlr_cgreet.h" /* datalove rider-header rider.dli -o dlr_cgreet.h */

DTLV_EXPORT_RIDER(cgreet)

uint8_t dlr_cgreet__repeat_text(void *rt, const dtlv_string_t *s, const dtlv_tydesc_t *s_td,
                                const uint32_t *times, const dtlv_tydesc_t *times_td,
                                dtlv_string_t *result_out, const dtlv_tydesc_t *result_td) {
    (void)s_td;
    (void)times_td;
    (void)result_td;
    size_t len = 0;
    const uint8_t *bytes = dtlv_rti_string_bytes(rt, s, &len);
    if (*times != 0 && len > SIZE_MAX / *times) {
        return dtlv_rti_fail(rt, "the result would be too long");
    }
    uint8_t *joined = malloc(len * *times + 1);
    if (joined == NULL) {
        return dtlv_rti_fail(rt, "out of memory");
    }
    for (uint32_t i = 0; i < *times; i++) {
        memcpy(joined + i * len, bytes, len);
    }
    /* The runtime copies the bytes into a string of its own. */
    dtlv_status_t status = dtlv_rti_string_from_bytes(rt, joined, len * *times, result_out);
    free(joined);
    return status;
}

uint8_t dlr_cgreet__add_checked(void *rt, const int32_t *a, const dtlv_tydesc_t *a_td,
                                const int32_t *b, const dtlv_tydesc_t *b_td, int32_t *result_out,
                                const dtlv_tydesc_t *result_td) {
    (void)a_td;
    (void)b_td;
    (void)result_td;
    int64_t sum = (int64_t)*a + (int64_t)*b;
    if (sum > INT32_MAX || sum < INT32_MIN) {
        return dtlv_rti_fail(rt, "the sum does not fit in an i32");
    }
    *result_out = (int32_t)sum;
    return DTLV_STATUS_OK;
}
