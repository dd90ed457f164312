/*
 * cprobe.c -- the conformance suite's C rider: natives written in C against
 * datalove_rti.h alone, so every backend is seen to call them through the C ABI (no
 * Rust in between). Each checks the descriptors it is handed and fails, with a
 * message set through the runtime table, when one is not what rider.dli declares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datalove_rti.h"
/* The prototypes rider.dli declares
 * (`datalove rider-header rider.dli -o dlr_cprobe.h` after a change to rider.dli; a test
 * holds the file to it):
 * a definition below that disagrees with its declaration does not compile. */
#include "dlr_cprobe.h"

DTLV_EXPORT_RIDER(cprobe)

/* Fails (status FAILED, message set) unless `td` is of `kind` and `size`. */
static int expect(void *rt, const char *native, const char *arg, const dtlv_tydesc_t *td,
                  uint32_t kind, size_t size) {
    char message[160];
    if (td->kind == kind && td->size == size) {
        return 1;
    }
    snprintf(message, sizeof message, "%s: argument %s has descriptor kind %u size %zu, expected kind %u size %zu",
             native, arg, (unsigned)td->kind, td->size, (unsigned)kind, size);
    dtlv_rti_fail(rt, message);
    return 0;
}

/* A new runtime string holding the NUL-terminated `text`. */
static dtlv_status_t make_string(void *rt, const char *text, dtlv_string_t *out) {
    return dtlv_rti_string_from_bytes(rt, (const uint8_t *)text, strlen(text), out);
}

uint8_t dlr_cprobe__cprobe_widths(void *rt, const uint8_t *a, const dtlv_tydesc_t *a_td,
                                  const int16_t *b, const dtlv_tydesc_t *b_td, const uint32_t *c,
                                  const dtlv_tydesc_t *c_td, const int64_t *d,
                                  const dtlv_tydesc_t *d_td, const int8_t *e,
                                  const dtlv_tydesc_t *e_td, int64_t *result_out,
                                  const dtlv_tydesc_t *result_td) {
    const char *n = "cprobe_widths";
    if (!expect(rt, n, "a", a_td, DTLV_KIND_U8, 1) || !expect(rt, n, "b", b_td, DTLV_KIND_I16, 2) ||
        !expect(rt, n, "c", c_td, DTLV_KIND_U32, 4) || !expect(rt, n, "d", d_td, DTLV_KIND_I64, 8) ||
        !expect(rt, n, "e", e_td, DTLV_KIND_I8, 1) ||
        !expect(rt, n, "result", result_td, DTLV_KIND_I64, 8)) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    *result_out = (int64_t)*a + 10 * (int64_t)*b + 100 * (int64_t)*c + 1000 * *d + 10000 * (int64_t)*e;
    return DTLV_STATUS_OK;
}

uint8_t dlr_cprobe__cprobe_floats(void *rt, const float *x, const dtlv_tydesc_t *x_td,
                                  const double *y, const dtlv_tydesc_t *y_td, const uint8_t *multiply,
                                  const dtlv_tydesc_t *multiply_td, double *result_out,
                                  const dtlv_tydesc_t *result_td) {
    const char *n = "cprobe_floats";
    if (!expect(rt, n, "x", x_td, DTLV_KIND_F32, 4) || !expect(rt, n, "y", y_td, DTLV_KIND_F64, 8) ||
        !expect(rt, n, "multiply", multiply_td, DTLV_KIND_BOOL, 1) ||
        !expect(rt, n, "result", result_td, DTLV_KIND_F64, 8)) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    *result_out = *multiply ? (double)*x * *y : (double)*x + *y;
    return DTLV_STATUS_OK;
}

uint8_t dlr_cprobe__cprobe_wide(void *rt,
    const uint16_t *a0, const dtlv_tydesc_t *t0, const uint16_t *a1, const dtlv_tydesc_t *t1,
    const uint16_t *a2, const dtlv_tydesc_t *t2, const uint16_t *a3, const dtlv_tydesc_t *t3,
    const uint16_t *a4, const dtlv_tydesc_t *t4, const uint16_t *a5, const dtlv_tydesc_t *t5,
    const uint16_t *a6, const dtlv_tydesc_t *t6, const uint16_t *a7, const dtlv_tydesc_t *t7,
    const uint16_t *a8, const dtlv_tydesc_t *t8, const uint16_t *a9, const dtlv_tydesc_t *t9,
    const uint16_t *a10, const dtlv_tydesc_t *t10, const uint16_t *a11, const dtlv_tydesc_t *t11,
    const uint16_t *a12, const dtlv_tydesc_t *t12, const uint16_t *a13, const dtlv_tydesc_t *t13,
    uint64_t *result_out, const dtlv_tydesc_t *result_td) {
    const uint16_t *args[14] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13};
    const dtlv_tydesc_t *tds[14] = {t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13};
    uint64_t sum = 0;
    char name[8];
    for (int i = 0; i < 14; i++) {
        snprintf(name, sizeof name, "a%d", i);
        if (!expect(rt, "cprobe_wide", name, tds[i], DTLV_KIND_U16, 2)) {
            return DTLV_STATUS_TYPE_MISMATCH;
        }
        sum += (uint64_t)*args[i] * (uint64_t)(i + 1);
    }
    if (!expect(rt, "cprobe_wide", "result", result_td, DTLV_KIND_U64, 8)) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    *result_out = sum;
    return DTLV_STATUS_OK;
}

uint8_t dlr_cprobe__cprobe_greet(void *rt, const dtlv_string_t *name, const dtlv_tydesc_t *name_td,
                                 dtlv_string_t *result_out, const dtlv_tydesc_t *result_td) {
    size_t len = 0;
    const uint8_t *bytes;
    dtlv_status_t status;
    if (!expect(rt, "cprobe_greet", "name", name_td, DTLV_KIND_STRING, sizeof(dtlv_string_t)) ||
        !expect(rt, "cprobe_greet", "result", result_td, DTLV_KIND_STRING, sizeof(dtlv_string_t))) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    status = make_string(rt, "hello, ", result_out);
    if (status != DTLV_STATUS_OK) {
        return status;
    }
    bytes = dtlv_rti_string_bytes(rt, name, &len);
    status = dtlv_rti_string_push(rt, result_out, bytes, len);
    if (status == DTLV_STATUS_OK) {
        status = dtlv_rti_string_push(rt, result_out, (const uint8_t *)"!", 1);
    }
    if (status != DTLV_STATUS_OK) {
        /* Nothing may be left in result_out on failure. */
        dtlv_rti_drop(rt, result_out, result_td);
    }
    return status;
}

uint8_t dlr_cprobe__cprobe_push_squares(void *rt, dtlv_list_t *xs, const dtlv_tydesc_t *xs_td,
                                        const uint32_t *n, const dtlv_tydesc_t *n_td, void *result_out,
                                        const dtlv_tydesc_t *result_td) {
    (void)result_out;
    (void)result_td;
    if (!expect(rt, "cprobe_push_squares", "xs", xs_td, DTLV_KIND_LIST, sizeof(dtlv_list_t)) ||
        !expect(rt, "cprobe_push_squares", "xs's element", xs_td->elem, DTLV_KIND_U64, 8) ||
        !expect(rt, "cprobe_push_squares", "n", n_td, DTLV_KIND_U32, 4)) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    for (uint32_t i = 0; i < *n; i++) {
        uint64_t square = (uint64_t)i * i;
        dtlv_status_t status = dtlv_rti_list_push(rt, xs, xs_td->elem, &square);
        if (status != DTLV_STATUS_OK) {
            return status;
        }
    }
    return DTLV_STATUS_OK;
}

uint8_t dlr_cprobe__cprobe_at(void *rt, const dtlv_list_t *xs, const dtlv_tydesc_t *xs_td,
                              const dtlv_index_t *i, const dtlv_tydesc_t *i_td, uint64_t *result_out,
                              const dtlv_tydesc_t *result_td) {
    char message[96];
    size_t len;
    const uint64_t *at;
    if (!expect(rt, "cprobe_at", "xs's element", xs_td->elem, DTLV_KIND_U64, 8) ||
        !expect(rt, "cprobe_at", "i", i_td, DTLV_KIND_INDEX, 8) ||
        !expect(rt, "cprobe_at", "result", result_td, DTLV_KIND_U64, 8)) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    len = dtlv_rti_list_len(rt, xs);
    if (*i >= len) {
        snprintf(message, sizeof message, "cprobe_at: index %llu past the length %zu",
                 (unsigned long long)*i, len);
        dtlv_rti_fail(rt, message);
        return DTLV_STATUS_OUT_OF_BOUNDS;
    }
    at = (const uint64_t *)dtlv_rti_list_at(rt, xs, xs_td->elem, (size_t)*i);
    *result_out = *at;
    return DTLV_STATUS_OK;
}

uint8_t dlr_cprobe__cprobe_take_len(void *rt, dtlv_string_t *s, const dtlv_tydesc_t *s_td,
                                    dtlv_index_t *result_out, const dtlv_tydesc_t *result_td) {
    if (!expect(rt, "cprobe_take_len", "s", s_td, DTLV_KIND_STRING, sizeof(dtlv_string_t)) ||
        !expect(rt, "cprobe_take_len", "result", result_td, DTLV_KIND_INDEX, 8)) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    *result_out = dtlv_rti_string_len(rt, s);
    /* Handed over `in`: the native's to destroy. */
    dtlv_rti_drop(rt, s, s_td);
    return DTLV_STATUS_OK;
}

uint8_t dlr_cprobe__cprobe_fail(void *rt, const int32_t *code, const dtlv_tydesc_t *code_td,
                                int32_t *result_out, const dtlv_tydesc_t *result_td) {
    char message[64];
    if (!expect(rt, "cprobe_fail", "code", code_td, DTLV_KIND_I32, 4) ||
        !expect(rt, "cprobe_fail", "result", result_td, DTLV_KIND_I32, 4)) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    if (*code != 0) {
        snprintf(message, sizeof message, "cprobe_fail: asked to fail with code %d", (int)*code);
        return dtlv_rti_fail(rt, message);
    }
    *result_out = 42;
    return DTLV_STATUS_OK;
}

uint8_t dlr_cprobe__cprobe_crash(void *rt, const int32_t *how, const dtlv_tydesc_t *how_td,
                                 int32_t *result_out, const dtlv_tydesc_t *result_td) {
    static const uint8_t message[] = "one\ntwo\r\nthree \xc3\x28 end";
    (void)how_td;
    (void)result_td;
    switch (*how) {
    case 1:
        *(volatile uint8_t *)(uintptr_t)16 = 1;
        break;
    case 2:
        abort();
    case 3:
        DTLV_RTI_TABLE(rt)->error_set(rt, message, sizeof message - 1);
        return DTLV_STATUS_FAILED;
    }
    *result_out = *how;
    return DTLV_STATUS_OK;
}

static const char *kind_name(uint32_t kind) {
    static const char *names[] = {"unit", "bool",  "u8",  "u16",   "u32",    "u64",
                                  "i8",   "i16",   "i32", "i64",   "f32",    "f64",
                                  "index", "string", "list", "option", "tuple", "data",
                                  "?",     "?",      "record", "enum"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

/* The result is a tuple (T, string): the empty T, written through the table's init,
 * and the kind and size the trailing descriptor says, at the offsets the result's
 * descriptor gives. */
uint8_t dlr_cprobe__cprobe_tagged(void *rt, void *result_out, const dtlv_tydesc_t *result_td,
                                  const dtlv_tydesc_t *t_td) {
    char text[48];
    const dtlv_tyfield_t *fields = result_td->fields;
    if (result_td->kind != DTLV_KIND_TUPLE || result_td->field_count != 2 ||
        fields[0].desc->kind != t_td->kind || fields[0].desc->size != t_td->size ||
        !expect(rt, "cprobe_tagged", "result field 1", fields[1].desc, DTLV_KIND_STRING,
                sizeof(dtlv_string_t))) {
        return dtlv_rti_fail(rt, "cprobe_tagged: the result is not (T, string) for the trailing T");
    }
    snprintf(text, sizeof text, "%s/%zu", kind_name(t_td->kind), t_td->size);
    DTLV_RTI_TABLE(rt)->init((uint8_t *)result_out + fields[0].offset, t_td);
    return make_string(rt, text, (dtlv_string_t *)((uint8_t *)result_out + fields[1].offset));
}

uint8_t dlr_cprobe__cprobe_zero(void *rt, void *result_out, const dtlv_tydesc_t *result_td,
                                const dtlv_tydesc_t *t_td) {
    if (result_td->kind != t_td->kind || result_td->size != t_td->size) {
        return dtlv_rti_fail(rt, "cprobe_zero: the trailing descriptor is not the result's");
    }
    DTLV_RTI_TABLE(rt)->init(result_out, t_td);
    return DTLV_STATUS_OK;
}

/* Reads an owned bigint's limbs in C, builds twice its value through the table, and
 * drops the argument (handed over `in`: the native's). */
uint8_t dlr_cprobe__cprobe_bigint_double(void *rt, dtlv_bigint_t *b, const dtlv_tydesc_t *b_td,
                                         dtlv_bigint_t *result_out,
                                         const dtlv_tydesc_t *result_td) {
    if (!expect(rt, "cprobe_bigint_double", "b", b_td, DTLV_KIND_BIGINT, sizeof(dtlv_bigint_t)) ||
        !expect(rt, "cprobe_bigint_double", "result", result_td, DTLV_KIND_BIGINT,
                sizeof(dtlv_bigint_t))) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    size_t n = b->len;
    uint64_t *limbs = malloc((n + 1) * sizeof(uint64_t));
    if (limbs == NULL) {
        dtlv_rti_drop(rt, b, b_td);
        return dtlv_rti_fail(rt, "cprobe_bigint_double: out of memory");
    }
    uint64_t carry = 0;
    for (size_t i = 0; i < n; i++) {
        limbs[i] = (b->limbs[i] << 1) | carry;
        carry = b->limbs[i] >> 63;
    }
    limbs[n] = carry;
    dtlv_status_t status =
        dtlv_rti_bigint_from_limbs(rt, (uint8_t)b->negative, limbs, n + 1, result_out);
    free(limbs);
    dtlv_rti_drop(rt, b, b_td);
    return status;
}

/* Appends `=value` for an i64 or f64 field at `p` to `text` (of `cap` bytes, `at` used);
 * the new length (past `cap` when it did not fit, as snprintf counts). */
static size_t scalar_text(char *text, size_t cap, size_t at, uint32_t kind, const uint8_t *p) {
    if (kind == DTLV_KIND_I64) {
        int64_t v;
        memcpy(&v, p, sizeof v);
        at += (size_t)snprintf(text + at, cap - at, "=%lld", (long long)v);
    } else if (kind == DTLV_KIND_F64) {
        double v;
        memcpy(&v, p, sizeof v);
        at += (size_t)snprintf(text + at, cap - at, "=%g", v);
    }
    return at;
}

/* Appends the fields of the record or tuple `desc` at `base`, comma-separated, each its
 * kind (after its name, `name:kind`, when `names` is not NULL: the NUL-terminated name
 * before the fields', as a record's descriptor lists them) and scalar value; the new
 * length, as scalar_text counts. */
static size_t fields_text(char *text, size_t cap, size_t at, const dtlv_tydesc_t *desc,
                          const uint8_t *base, const char *names) {
    for (size_t i = 0; i < desc->field_count && at < cap; i++) {
        const dtlv_tyfield_t *field = &desc->fields[i];
        const uint8_t *p = base + field->offset;
        uint32_t kind = field->desc->kind;
        if (names != NULL) {
            names += strlen(names) + 1;
            at += (size_t)snprintf(text + at, cap - at, "%s%s:%s", i ? "," : "", names,
                                   kind_name(kind));
        } else {
            at += (size_t)snprintf(text + at, cap - at, "%s%s", i ? "," : "", kind_name(kind));
        }
        if (at >= cap) {
            break;
        }
        at = scalar_text(text, cap, at, kind, p);
    }
    return at;
}

/* Closes `text` (of `cap` bytes, `at` used) with `close` and makes it the result string;
 * fails with `too_long` when it does not fit. */
static uint8_t close_text(void *rt, char *text, size_t cap, size_t at, char close,
                          const char *too_long, dtlv_string_t *result_out) {
    if (at + 2 > cap) {
        return dtlv_rti_fail(rt, too_long);
    }
    text[at++] = close;
    text[at] = '\0';
    return make_string(rt, text, result_out);
}

/* A record read through its descriptor, as C sees it: `Name{field:kind=value,...}`, the
 * names walked from `names` (each NUL-terminated, the record's first), integer and
 * float fields read at their offsets, any other field by its kind alone. */
uint8_t dlr_cprobe__cprobe_record(void *rt, const void *x, const dtlv_tydesc_t *x_td,
                                  dtlv_string_t *result_out, const dtlv_tydesc_t *result_td) {
    char text[512];
    size_t at = 0;
    (void)result_td;
    if (x_td->kind != DTLV_KIND_RECORD || x_td->names == NULL) {
        return dtlv_rti_fail(rt, "cprobe_record: the argument is not a record");
    }
    at += (size_t)snprintf(text + at, sizeof text - at, "%s{", x_td->names);
    at = fields_text(text, sizeof text, at, x_td, x, x_td->names);
    return close_text(rt, text, sizeof text, at, '}', "cprobe_record: the text is too long",
                      result_out);
}

/* An enum read from C: the uint32_t tag at 0 picks `fields[tag]`, the variant's payload
 * (a tuple) at its offset; the names are the enum's, then its variants'. */
uint8_t dlr_cprobe__cprobe_enum(void *rt, const void *x, const dtlv_tydesc_t *x_td,
                                dtlv_string_t *result_out, const dtlv_tydesc_t *result_td) {
    char text[512];
    size_t at = 0;
    uint32_t tag;
    (void)result_td;
    if (x_td->kind != DTLV_KIND_ENUM || x_td->names == NULL) {
        return dtlv_rti_fail(rt, "cprobe_enum: the argument is not an enum");
    }
    memcpy(&tag, x, sizeof tag);
    if (tag >= x_td->field_count) {
        return dtlv_rti_fail(rt, "cprobe_enum: the tag names no variant");
    }
    const char *name = x_td->names;
    const char *variant = name + strlen(name) + 1;
    for (uint32_t v = 0; v < tag; v++) {
        variant += strlen(variant) + 1;
    }
    const dtlv_tyfield_t *payload = &x_td->fields[tag];
    at += (size_t)snprintf(text + at, sizeof text - at, "%s.%s#%u(", name, variant,
                           (unsigned)tag);
    at = fields_text(text, sizeof text, at, payload->desc, (const uint8_t *)x + payload->offset,
                     NULL);
    return close_text(rt, text, sizeof text, at, ')', "cprobe_enum: the text is too long",
                      result_out);
}

/* A map read from C: its length and entries through the table, the value's offset in
 * an entry from the descriptor (the map's second field). */
uint8_t dlr_cprobe__cprobe_map_sum(void *rt, const dtlv_map_t *m, const dtlv_tydesc_t *m_td,
                                   uint64_t *result_out, const dtlv_tydesc_t *result_td) {
    uint64_t sum = 0;
    size_t len;
    if (!expect(rt, "cprobe_map_sum", "m", m_td, DTLV_KIND_MAP, sizeof(dtlv_map_t)) ||
        m_td->field_count != 2 ||
        !expect(rt, "cprobe_map_sum", "the key", m_td->fields[0].desc, DTLV_KIND_STRING,
                sizeof(dtlv_string_t)) ||
        !expect(rt, "cprobe_map_sum", "the value", m_td->fields[1].desc, DTLV_KIND_U64, 8) ||
        !expect(rt, "cprobe_map_sum", "result", result_td, DTLV_KIND_U64, 8)) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    len = dtlv_rti_map_len(rt, m);
    for (size_t i = 0; i < len; i++) {
        const uint8_t *entry = (const uint8_t *)dtlv_rti_map_entry_at(rt, m, m_td, i);
        uint64_t v;
        memcpy(&v, entry + m_td->fields[1].offset, sizeof v);
        sum += v;
    }
    *result_out = sum;
    return DTLV_STATUS_OK;
}

/* A map changed from C: the key is cloned (it is only lent), then both move in. */
uint8_t dlr_cprobe__cprobe_map_put(void *rt, dtlv_map_t *m, const dtlv_tydesc_t *m_td,
                                   const dtlv_string_t *key, const dtlv_tydesc_t *key_td,
                                   const uint64_t *v, const dtlv_tydesc_t *v_td, void *result_out,
                                   const dtlv_tydesc_t *result_td) {
    dtlv_string_t copy;
    uint64_t value = *v;
    dtlv_status_t status;
    (void)result_out;
    (void)result_td;
    if (!expect(rt, "cprobe_map_put", "m", m_td, DTLV_KIND_MAP, sizeof(dtlv_map_t)) ||
        !expect(rt, "cprobe_map_put", "key", key_td, DTLV_KIND_STRING, sizeof(dtlv_string_t)) ||
        !expect(rt, "cprobe_map_put", "v", v_td, DTLV_KIND_U64, 8)) {
        return DTLV_STATUS_TYPE_MISMATCH;
    }
    status = dtlv_rti_clone(rt, key, key_td, &copy);
    if (status != DTLV_STATUS_OK) {
        return status;
    }
    return dtlv_rti_map_insert(rt, m, m_td, &copy, &value);
}
