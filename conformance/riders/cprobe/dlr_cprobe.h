/* Generated from rider.dli by `datalove rider-header`; do not edit.
 *
 * The prototype of every native of rider `cprobe`, as rider.dli declares it.
 * Include this file in the rider's C source before the definitions: a
 * "conflicting types" error on one means that native's definition disagrees
 * with its declaration. */
#ifndef DLR_CPROBE_H
#define DLR_CPROBE_H

#include <stdint.h>

#include "datalove_rti.h"

DTLV_BEGIN_DECLS

/* The ABI version the rider was built for: DTLV_EXPORT_RIDER(cprobe). */
uint32_t dtlv_rider_abi_version_cprobe(void);

/* rider.dli:5:1: native fun cprobe_widths(a: u8, b: i16, c: u32, d: i64, e: i8): i64 */
uint8_t dlr_cprobe__cprobe_widths(void *rt, const uint8_t *a, const dtlv_tydesc_t *a_td, const int16_t *b, const dtlv_tydesc_t *b_td, const uint32_t *c, const dtlv_tydesc_t *c_td, const int64_t *d, const dtlv_tydesc_t *d_td, const int8_t *e, const dtlv_tydesc_t *e_td, int64_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:6:1: native fun cprobe_floats(x: f32, y: f64, multiply: bool): f64 */
uint8_t dlr_cprobe__cprobe_floats(void *rt, const float *x, const dtlv_tydesc_t *x_td, const double *y, const dtlv_tydesc_t *y_td, const uint8_t *multiply, const dtlv_tydesc_t *multiply_td, double *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:7:1: native fun cprobe_wide(a0: u16, a1: u16, a2: u16, a3: u16, a4: u16, a5: u16, a6: u16, a7: u16, a8: u16, a9: u16, a10: u16, a11: u16, a12: u16, a13: u16): u64 */
uint8_t dlr_cprobe__cprobe_wide(void *rt, const uint16_t *a0, const dtlv_tydesc_t *a0_td, const uint16_t *a1, const dtlv_tydesc_t *a1_td, const uint16_t *a2, const dtlv_tydesc_t *a2_td, const uint16_t *a3, const dtlv_tydesc_t *a3_td, const uint16_t *a4, const dtlv_tydesc_t *a4_td, const uint16_t *a5, const dtlv_tydesc_t *a5_td, const uint16_t *a6, const dtlv_tydesc_t *a6_td, const uint16_t *a7, const dtlv_tydesc_t *a7_td, const uint16_t *a8, const dtlv_tydesc_t *a8_td, const uint16_t *a9, const dtlv_tydesc_t *a9_td, const uint16_t *a10, const dtlv_tydesc_t *a10_td, const uint16_t *a11, const dtlv_tydesc_t *a11_td, const uint16_t *a12, const dtlv_tydesc_t *a12_td, const uint16_t *a13, const dtlv_tydesc_t *a13_td, uint64_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:8:1: native fun cprobe_greet(ref name: string): string */
uint8_t dlr_cprobe__cprobe_greet(void *rt, const dtlv_string_t *name, const dtlv_tydesc_t *name_td, dtlv_string_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:9:1: native fun cprobe_push_squares(mut xs: [u64], n: u32) */
uint8_t dlr_cprobe__cprobe_push_squares(void *rt, dtlv_list_t *xs, const dtlv_tydesc_t *xs_td, const uint32_t *n, const dtlv_tydesc_t *n_td, void *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:10:1: native fun cprobe_at(ref xs: [u64], i: index): u64 */
uint8_t dlr_cprobe__cprobe_at(void *rt, const dtlv_list_t *xs, const dtlv_tydesc_t *xs_td, const dtlv_index_t *i, const dtlv_tydesc_t *i_td, uint64_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:11:1: native fun cprobe_take_len(s: string): index */
uint8_t dlr_cprobe__cprobe_take_len(void *rt, dtlv_string_t *s, const dtlv_tydesc_t *s_td, dtlv_index_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:12:1: native fun cprobe_fail(code: i32): i32 */
uint8_t dlr_cprobe__cprobe_fail(void *rt, const int32_t *code, const dtlv_tydesc_t *code_td, int32_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:13:1: native fun cprobe_crash(how: i32): i32 */
uint8_t dlr_cprobe__cprobe_crash(void *rt, const int32_t *how, const dtlv_tydesc_t *how_td, int32_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:14:1: native fun cprobe_tagged<T>(): (T, string) */
uint8_t dlr_cprobe__cprobe_tagged(void *rt, void *result_out, const dtlv_tydesc_t *result_td, const dtlv_tydesc_t *t_td);

/* rider.dli:15:1: native fun cprobe_zero<T>(): T */
uint8_t dlr_cprobe__cprobe_zero(void *rt, void *result_out, const dtlv_tydesc_t *result_td, const dtlv_tydesc_t *t_td);

/* rider.dli:16:1: native fun cprobe_bigint_double(b: bigint): bigint */
uint8_t dlr_cprobe__cprobe_bigint_double(void *rt, dtlv_bigint_t *b, const dtlv_tydesc_t *b_td, dtlv_bigint_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:17:1: native fun cprobe_record<T>(ref x: T): string */
uint8_t dlr_cprobe__cprobe_record(void *rt, const void *x, const dtlv_tydesc_t *x_td, dtlv_string_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:18:1: native fun cprobe_enum<T>(ref x: T): string */
uint8_t dlr_cprobe__cprobe_enum(void *rt, const void *x, const dtlv_tydesc_t *x_td, dtlv_string_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:19:1: native fun cprobe_map_sum(ref m: map[string, u64]): u64 */
uint8_t dlr_cprobe__cprobe_map_sum(void *rt, const dtlv_map_t *m, const dtlv_tydesc_t *m_td, uint64_t *result_out, const dtlv_tydesc_t *result_td);

/* rider.dli:20:1: native fun cprobe_map_put(mut m: map[string, u64], ref key: string, v: u64) */
uint8_t dlr_cprobe__cprobe_map_put(void *rt, dtlv_map_t *m, const dtlv_tydesc_t *m_td, const dtlv_string_t *key, const dtlv_tydesc_t *key_td, const uint64_t *v, const dtlv_tydesc_t *v_td, void *result_out, const dtlv_tydesc_t *result_td);

DTLV_END_DECLS

#endif /* DLR_CPROBE_H */
