/* Generated from rider.dli by `datalove rider-header`; do not edit.
 *
 * The prototype of every native of rider `cgreet`, as rider.dli declares it.
 * Include this file in the rider's C source before the definitions: a
 * "conflicting types" error on one means that native's definition disagrees
 * with its declaration. */
#ifndef DLR_CGREET_H
#define DLR_CGREET_H

#include <stdint.h>

#include "datalove_rti.h"

DTLV_BEGIN_DECLS

/* The ABI version the rider was built for: DTLV_EXPORT_RIDER(cgreet). */
uint32_t dtlv_rider_abi_version_cgreet(void);

/* rider.dli:2:1: native fun repeat_text(ref s: string, times: u32): string */
uint8_t dlr_cgreet__repeat_text(void *rt, const dtlv_string_t *s, const dtlv_tydesc_t *s_td, const uint32_t *times, const dtlv_tydesc_t *times_td, dtlv_string_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:3:1: native fun add_checked(a: i32, b: i32): i32 */
uint8_t dlr_cgreet__add_checked(void *rt, const int32_t *a, const dtlv_tydesc_t *a_td, const int32_t *b, const dtlv_tydesc_t *b_td, int32_t *result_out, const dtlv_tydesc_t *result_td);

DTLV_END_DECLS

#endif /* DLR_CGREET_H */
