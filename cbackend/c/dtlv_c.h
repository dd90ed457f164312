/*
 * dtlv_c.h -- the helpers C emitted by datalove's C backend (crate datalove-cbackend)
 * uses, besides the ABI header. Real C: the backend embeds this file at build time and
 * writes it beside the program it compiles; a test compiles it on its own and checks
 * each helper against the interpreter's arithmetic.
 *
 * Nothing here relies on undefined behaviour: float-to-integer conversions are
 * range-checked before the C conversion, and type punning goes through memcpy.
 */
#ifndef DTLV_C_H
#define DTLV_C_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "datalove_rti.h"

/* The runtime header behind `rt`: compiled code reads and writes its fields in place. */
#define DTLV_C_HEADER(rt) ((dtlv_rt_header_t *)(rt))

/* Nonzero while the runtime is abandoning for an error. */
#define DTLV_C_ABANDONING(rt) (DTLV_C_HEADER(rt)->abandoning != 0)

/* The stack pointer where it is read: at most the function's own frame above its
 * bottom. Read with one instruction on the targets we know, so that the function keeps
 * its frame-pointer register for values and its prologue can be shrink-wrapped past the
 * test (`__builtin_frame_address` forces a frame pointer: measured, it spilled a loop
 * bound of the native-call loop); elsewhere the frame address, which is as good a bound.
 * Not volatile: the compiler may read it once and place it where it likes in the
 * function, which is any point of the function's own frame. */
#if defined(__GNUC__) && defined(__x86_64__)
#define DTLV_C_STACK_POINTER() \
    __extension__({ uintptr_t dtlv_sp_; __asm__("mov %%rsp, %0" : "=r"(dtlv_sp_)); dtlv_sp_; })
#elif defined(__GNUC__) && defined(__aarch64__)
#define DTLV_C_STACK_POINTER() \
    __extension__({ uintptr_t dtlv_sp_; __asm__("mov %0, sp" : "=r"(dtlv_sp_)); dtlv_sp_; })
#else
#define DTLV_C_STACK_POINTER() ((uintptr_t)__builtin_frame_address(0))
#endif

/* Nonzero when fewer than `bytes` are left between the current function's stack
 * pointer and the stack limit. A macro, so that the stack pointer is read in the
 * function it is written in. Written as a sum, so that nothing wraps. */
#define DTLV_C_NO_STACK_ROOM(rt, bytes) \
    (DTLV_C_STACK_POINTER() < \
     (uintptr_t)DTLV_C_HEADER(rt)->stack_limit + (uintptr_t)(bytes))

/* What a program function with a scalar result returns: the result and the status,
 * nonzero when the function abandoned (a repeat of `abandoning`, in a register). The
 * status is a whole word, so that the struct is two words passed in two registers
 * whatever the result's type (a float result stays in a float register on x86-64). A
 * function without a scalar result returns the status alone, as a `uint8_t`. */
#define DTLV_C_RET(name, type) \
    typedef struct { \
        type value; \
        uint64_t abandoned; \
    } dtlv_c_ret_##name
DTLV_C_RET(int8, int8_t);
DTLV_C_RET(int16, int16_t);
DTLV_C_RET(int32, int32_t);
DTLV_C_RET(int64, int64_t);
DTLV_C_RET(uint8, uint8_t);
DTLV_C_RET(uint16, uint16_t);
DTLV_C_RET(uint32, uint32_t);
DTLV_C_RET(uint64, uint64_t);
DTLV_C_RET(float, float);
DTLV_C_RET(double, double);
#undef DTLV_C_RET

/* The float with the given bits (NaNs and infinities are written this way). */
static inline double dtlv_c_f64_from_bits(uint64_t bits) {
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static inline float dtlv_c_f32_from_bits(uint32_t bits) {
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* A float converted to a signed integer in [lo, hi], saturating, NaN to 0 (Rust's `as`). */
static inline int64_t dtlv_c_f64_to_signed_sat(double x, int64_t lo, int64_t hi) {
    if (x != x) {
        return 0;
    }
    if (x <= (double)lo) {
        return lo;
    }
    if (x >= (double)hi) {
        return hi;
    }
    return (int64_t)x;
}

/* A float converted to an unsigned integer in [0, hi], saturating, NaN to 0. */
static inline uint64_t dtlv_c_f64_to_unsigned_sat(double x, uint64_t hi) {
    if (!(x > 0.0)) {
        return 0;
    }
    if (x >= (double)hi) {
        return hi;
    }
    return (uint64_t)x;
}

/* Whether a checked float-to-integer conversion succeeds: `x` is not NaN and its
 * truncation is in [lo, hi]. When `hi` is not a float (the top of a 64-bit range), its
 * float `hi_f` is one past the range, so the bound is exclusive (`hi_exact` 0). */
static inline int dtlv_c_float_cast_ok(double x, double lo_f, double hi_f, int hi_exact) {
    double t = trunc(x);
    return t >= lo_f && (hi_exact ? t <= hi_f : t < hi_f);
}

#endif /* DTLV_C_H */
