/*
 * datalove_rti.h -- the C view of the datalove native-call ABI.
 *
 * The Rust definitions in runtime/rti (crate datalove-rti) are the ABI of record; this
 * header mirrors them, and a test (runtime/rt/tests/c_header.rs) compiles a program
 * against it and checks every size, offset and constant against the Rust side.
 * docs/abi.md has the contract of every entry.
 *
 * A native is
 *
 *     uint8_t dlr_<rider>__<function>(void *rt,
 *                                     void *a0, const dtlv_tydesc_t *t0, ...,
 *                                     void *result_out, const dtlv_tydesc_t *result_td,
 *                                     const dtlv_tydesc_t *s0, ...);
 *
 * returning DTLV_STATUS_OK, or another status after writing nothing to result_out
 * (explain with dtlv_rti_error_set). A rider links nothing from the runtime: every
 * entry point is reached through the table `rt` points at. The static inline
 * dtlv_rti_* wrappers below read it off `rt`. The entries that take no `rt` (init,
 * data_borrow, field_offset, field_tydesc, payload_offset, payload_tydesc) have no
 * wrapper: call them as DTLV_RTI_TABLE(rt)->init(out, td).
 *
 * Export the ABI version the rider was built for with DTLV_EXPORT_RIDER(name).
 */
#ifndef DATALOVE_RTI_H
#define DATALOVE_RTI_H

#include <stddef.h>
#include <stdint.h>

/* Open and close declarations with C linkage, in C and in C++ (this header's and a
   rider header's, `datalove rider-header`). */
#ifdef __cplusplus
#define DTLV_BEGIN_DECLS extern "C" {
#define DTLV_END_DECLS }
#else
#define DTLV_BEGIN_DECLS
#define DTLV_END_DECLS
#endif

DTLV_BEGIN_DECLS

/* ---- versions and constants ---------------------------------------------------- */

/* The ABI this header describes (datalove_rti::ABI_VERSION). */
#define DTLV_ABI_VERSION 1u

/* The newest table version this header describes (datalove_rti::TABLE_VERSION). A rider
 * may pin itself to an earlier one by defining DTLV_TABLE_VERSION before including this
 * header: its table struct then ends where that version's did, and it still loads and
 * runs against a newer runtime (whose table is only longer). */
#define DTLV_TABLE_VERSION_LATEST 7u
#ifndef DTLV_TABLE_VERSION
#define DTLV_TABLE_VERSION DTLV_TABLE_VERSION_LATEST
#endif

typedef uint8_t dtlv_status_t;
#define DTLV_STATUS_FAILED ((dtlv_status_t)0)
#define DTLV_STATUS_OK ((dtlv_status_t)1)
#define DTLV_STATUS_OUT_OF_BOUNDS ((dtlv_status_t)2)
#define DTLV_STATUS_INVALID_UTF8 ((dtlv_status_t)3)
#define DTLV_STATUS_TYPE_MISMATCH ((dtlv_status_t)4)
#define DTLV_STATUS_PANICKED ((dtlv_status_t)5)
#define DTLV_STATUS_EMPTY ((dtlv_status_t)6)
#define DTLV_STATUS_NOT_FOUND ((dtlv_status_t)7)

/* dtlv_tydesc_t.kind */
#define DTLV_KIND_UNIT 0u
#define DTLV_KIND_BOOL 1u
#define DTLV_KIND_U8 2u
#define DTLV_KIND_U16 3u
#define DTLV_KIND_U32 4u
#define DTLV_KIND_U64 5u
#define DTLV_KIND_I8 6u
#define DTLV_KIND_I16 7u
#define DTLV_KIND_I32 8u
#define DTLV_KIND_I64 9u
#define DTLV_KIND_F32 10u
#define DTLV_KIND_F64 11u
#define DTLV_KIND_INDEX 12u
#define DTLV_KIND_STRING 13u
#define DTLV_KIND_LIST 14u
#define DTLV_KIND_OPTION 15u
#define DTLV_KIND_TUPLE 16u
#define DTLV_KIND_DATA 17u
#define DTLV_KIND_MAP 18u
#define DTLV_KIND_BIGINT 19u
#define DTLV_KIND_RECORD 20u
#define DTLV_KIND_ENUM 21u

/* dtlv_tydesc_t.flags: plain bytes (copy is memcpy, drop is nothing). */
#define DTLV_TYDESC_COPY 1u

/* Runtime-error kinds (dtlv_rti_raise), datalove_rti::ErrorKind. */
#define DTLV_ERROR_NATIVE_FAILURE 1u
#define DTLV_ERROR_OVERFLOW 2u
#define DTLV_ERROR_DIVISION_BY_ZERO 3u
#define DTLV_ERROR_INDEX_OUT_OF_BOUNDS 4u
#define DTLV_ERROR_STACK_OVERFLOW 5u
#define DTLV_ERROR_SHADOW_STACK_EXHAUSTED 6u
#define DTLV_ERROR_INVALID_CAST 7u
#define DTLV_ERROR_UNWRAP_NONE 8u
#define DTLV_ERROR_LEAK 9u
#define DTLV_ERROR_OUT_OF_MEMORY 10u
#define DTLV_ERROR_OUTPUT 11u
#define DTLV_ERROR_NATIVE_CRASH 12u
#define DTLV_ERROR_CRASH 13u
#define DTLV_ERROR_EXIT 14u
#define DTLV_ERROR_KEY_NOT_FOUND 15u

/* Arithmetic operations (dtlv_rti_raise_arith), datalove_rti::ArithOp. */
#define DTLV_ARITH_ADD 0u
#define DTLV_ARITH_SUB 1u
#define DTLV_ARITH_MUL 2u
#define DTLV_ARITH_DIV 3u
#define DTLV_ARITH_REM 4u
#define DTLV_ARITH_NEG 5u
#define DTLV_ARITH_SHL 6u
#define DTLV_ARITH_SHR 7u
#define DTLV_ARITH_CAST 8u
/* The `ty` of a conversion from kind FROM to kind TO. */
#define DTLV_CAST_TY(from, to) ((uint32_t)(to) | ((uint32_t)(from) << 8))

/* ---- descriptors and values ----------------------------------------------------- */

typedef struct dtlv_tydesc dtlv_tydesc_t;

/* One tuple field: its descriptor and byte offset. */
typedef struct dtlv_tyfield {
    const dtlv_tydesc_t *desc;
    size_t offset;
} dtlv_tyfield_t;

/* A type descriptor. `elem` is a list's element or an option's payload;
 * `payload_offset` where an option's payload starts (the tag byte is at 0);
 * `fields`/`field_count` a tuple's or a record's fields; `names` a record's name and
 * field names, each followed by a NUL byte ("Point\0x\0y\0"), NULL for other kinds.
 * A record is laid out as the tuple of its fields. An enum (DTLV_KIND_ENUM) is a
 * uint32_t tag (the variant's index) at 0 and one `fields` entry per variant: its
 * payload as a tuple (the empty tuple for none) at the shared offset, also in
 * `payload_offset`; `names` is its name, then its variant names ("Shape\0Circle\0").
 * Compare descriptors structurally, never by address. */
struct dtlv_tydesc {
    uint32_t kind;
    uint32_t flags;
    size_t size;
    size_t align;
    const dtlv_tydesc_t *elem;
    size_t payload_offset;
    size_t field_count;
    const dtlv_tyfield_t *fields;
    const char *names;
};

/* A string: UTF-8, length delimited (interior NUL allowed), owned by the runtime.
 * Read it with dtlv_rti_string_bytes; change it only through the table. */
typedef struct dtlv_string {
    uint8_t *ptr;
    size_t len;
    size_t cap;
} dtlv_string_t;

/* A list: `len` elements at i * elem->size; `cap` counted in elements. */
typedef struct dtlv_list {
    uint8_t *ptr;
    size_t len;
    size_t cap;
} dtlv_list_t;

/* A map: a handle the runtime owns (null: the empty map), entries in key order. Read
 * and change it only through the table (dtlv_rti_map_*); the key and value descriptors
 * are the map descriptor's two fields (its `elem` is the entry tuple). */
typedef struct dtlv_map {
    void *handle;
} dtlv_map_t;

/* A data: a value with its descriptor; scalars packed into `word`, the rest boxed. */
typedef struct dtlv_data {
    const dtlv_tydesc_t *desc;
    uint64_t word;
} dtlv_data_t;

/* A bigint: sign and magnitude, `len` little-endian 64-bit limbs at `limbs` (the top
 * one never zero; zero has len 0 and is not negative). Made only by the runtime
 * (dtlv_rti_bigint_from_limbs); read the limbs as they are. */
typedef struct dtlv_bigint {
    uint64_t *limbs;
    size_t len;
    size_t negative;
} dtlv_bigint_t;

/* An index: a position or length. */
typedef uint64_t dtlv_index_t;

/* Allocation counts (dtlv_rti_alloc_stats). */
typedef struct dtlv_alloc_stats {
    size_t live;
    size_t total;
    size_t live_bytes;
} dtlv_alloc_stats_t;

/* ---- the runtime header and table ----------------------------------------------- */

typedef struct dtlv_rti_table dtlv_rti_table_t;

/* What `rt` points at first. A rider reads only `table`. */
typedef struct dtlv_rt_header {
    const dtlv_rti_table_t *table;
    uint8_t abandoning;
    size_t stack_limit;
    uint8_t *shadow_top;
    uint8_t *shadow_limit;
    size_t depth_left;
} dtlv_rt_header_t;

/* Every runtime entry point, in datalove_rti::RtiTable order. Append-only. */
struct dtlv_rti_table {
    uint32_t abi_version;
    size_t struct_size;

    /* entry points that need no runtime state (no rt) */
    void (*init)(void *out, const dtlv_tydesc_t *td);
    void (*data_borrow)(const dtlv_data_t *data, uint64_t *scratch, const void **out_ptr,
                        const dtlv_tydesc_t **out_td);
    size_t (*field_offset)(const dtlv_tydesc_t *tuple_td, size_t field);
    const dtlv_tydesc_t *(*field_tydesc)(const dtlv_tydesc_t *tuple_td, size_t field);
    size_t (*payload_offset)(const dtlv_tydesc_t *option_td);
    const dtlv_tydesc_t *(*payload_tydesc)(const dtlv_tydesc_t *option_td);

    /* strings */
    dtlv_status_t (*string_from_bytes)(void *rt, const uint8_t *bytes, size_t len,
                                       dtlv_string_t *out);
    size_t (*string_len)(void *rt, const dtlv_string_t *s);
    const uint8_t *(*string_bytes)(void *rt, const dtlv_string_t *s, size_t *out_len);
    dtlv_status_t (*string_push)(void *rt, dtlv_string_t *s, const uint8_t *bytes, size_t len);
    dtlv_status_t (*string_concat)(void *rt, const dtlv_string_t *a, const dtlv_string_t *b,
                                   dtlv_string_t *out);
    dtlv_status_t (*string_slice)(void *rt, const dtlv_string_t *s, size_t start, size_t end,
                                  dtlv_string_t *out);
    uint8_t (*string_eq)(void *rt, const dtlv_string_t *a, const dtlv_string_t *b);
    int32_t (*string_cmp)(void *rt, const dtlv_string_t *a, const dtlv_string_t *b);

    /* lists */
    dtlv_status_t (*list_new)(void *rt, const dtlv_tydesc_t *elem_td, size_t capacity,
                              dtlv_list_t *out);
    size_t (*list_len)(void *rt, const dtlv_list_t *list);
    dtlv_status_t (*list_push)(void *rt, dtlv_list_t *list, const dtlv_tydesc_t *elem_td,
                               void *value);
    dtlv_status_t (*list_pop)(void *rt, dtlv_list_t *list, const dtlv_tydesc_t *elem_td,
                              void *out);
    dtlv_status_t (*list_get)(void *rt, const dtlv_list_t *list, const dtlv_tydesc_t *elem_td,
                              size_t index, void *out);
    void *(*list_at)(void *rt, const dtlv_list_t *list, const dtlv_tydesc_t *elem_td,
                     size_t index);
    dtlv_status_t (*list_set)(void *rt, dtlv_list_t *list, const dtlv_tydesc_t *elem_td,
                              size_t index, void *value);
    dtlv_status_t (*list_insert)(void *rt, dtlv_list_t *list, const dtlv_tydesc_t *elem_td,
                                 size_t index, void *value);
    dtlv_status_t (*list_remove)(void *rt, dtlv_list_t *list, const dtlv_tydesc_t *elem_td,
                                 size_t index, void *out);

    /* data */
    dtlv_status_t (*data_make)(void *rt, void *value, const dtlv_tydesc_t *td,
                               dtlv_data_t *out);
    dtlv_status_t (*data_type_name)(void *rt, const dtlv_data_t *data, dtlv_string_t *out);
    dtlv_status_t (*type_name)(void *rt, const dtlv_tydesc_t *td, dtlv_string_t *out);

    /* any value, by descriptor */
    dtlv_status_t (*clone)(void *rt, const void *src, const dtlv_tydesc_t *td, void *dst);
    void (*drop)(void *rt, void *value, const dtlv_tydesc_t *td);
    uint8_t (*eq)(void *rt, const void *a, const void *b, const dtlv_tydesc_t *td);
    int32_t (*cmp)(void *rt, const void *a, const void *b, const dtlv_tydesc_t *td);
    dtlv_status_t (*format)(void *rt, const void *value, const dtlv_tydesc_t *td,
                            dtlv_string_t *out);
    void (*debuglog)(void *rt, const void *value, const dtlv_tydesc_t *td);

    /* errors */
    void (*error_set)(void *rt, const uint8_t *message, size_t len);
    const uint8_t *(*error_message)(void *rt, size_t *out_len);
    void (*native_failed)(void *rt, const uint8_t *rider, size_t rider_len,
                          const uint8_t *function, size_t function_len, dtlv_status_t status);
    void (*raise)(void *rt, uint32_t kind, const uint8_t *detail, size_t len);
    void (*raise_arith)(void *rt, uint32_t kind, uint32_t op, uint32_t ty);
    void (*raise_bounds)(void *rt, uint64_t index, uint64_t len);
    void (*raise_stack_overflow)(void *rt);

    /* shadow stack */
    uint8_t *(*shadow_push)(void *rt, size_t size, size_t align);
    void (*shadow_pop)(void *rt, uint8_t *mark);

    /* descriptors made at run time (interned; live until the runtime is destroyed) */
    const dtlv_tydesc_t *(*tydesc_list)(void *rt, const dtlv_tydesc_t *elem);
    const dtlv_tydesc_t *(*tydesc_option)(void *rt, const dtlv_tydesc_t *payload);
    const dtlv_tydesc_t *(*tydesc_tuple)(void *rt, const dtlv_tydesc_t *const *fields,
                                         size_t count);

    /* memory */
    uint8_t *(*alloc)(void *rt, size_t size, size_t align);
    void (*free)(void *rt, uint8_t *ptr, size_t size, size_t align);
    void (*alloc_stats)(void *rt, dtlv_alloc_stats_t *out);

    /* the program */
    dtlv_status_t (*program_args)(void *rt, dtlv_list_t *out);
    dtlv_status_t (*list_filled)(void *rt, const dtlv_tydesc_t *elem_td, size_t len, void *value,
                                 dtlv_list_t *out);
    /* where the error being abandoned for passed: "FILE:LINE:COL" (compiled code only) */
    void (*error_at)(void *rt, const uint8_t *site, size_t len);

#if DTLV_TABLE_VERSION >= 2
    /* maps (table version 2) */
    const dtlv_tydesc_t *(*tydesc_map)(void *rt, const dtlv_tydesc_t *key,
                                       const dtlv_tydesc_t *value);
    size_t (*map_len)(void *rt, const dtlv_map_t *map);
    dtlv_status_t (*map_insert)(void *rt, dtlv_map_t *map, const dtlv_tydesc_t *map_td,
                                void *key, void *value);
    void *(*map_find)(void *rt, const dtlv_map_t *map, const dtlv_tydesc_t *map_td,
                      const void *key);
    dtlv_status_t (*map_remove)(void *rt, dtlv_map_t *map, const dtlv_tydesc_t *map_td,
                                const void *key, void *out);
    void *(*map_entry_at)(void *rt, const dtlv_map_t *map, const dtlv_tydesc_t *map_td,
                          size_t index);
    /* bigints */
    dtlv_status_t (*bigint_from_limbs)(void *rt, uint8_t negative, const uint64_t *limbs,
                                       size_t len, dtlv_bigint_t *out);
#endif
#if DTLV_TABLE_VERSION >= 3
    /* enums (table version 3): the descriptor of an enum from its names and its
     * variants' payload tuple descriptors */
    const dtlv_tydesc_t *(*tydesc_enum)(void *rt, const uint8_t *names, size_t names_len,
                                        const dtlv_tydesc_t *const *payloads, size_t count);
#endif
#if DTLV_TABLE_VERSION >= 4
    /* strings for compiled code (table version 4): bytes start..end as a string of their
     * own (view 0) or as a head over s's bytes that owns nothing (view 1); a refused
     * slice raises the error itself */
    dtlv_status_t (*string_part)(void *rt, const dtlv_string_t *s, size_t start, size_t end,
                                 uint8_t view, dtlv_string_t *out);
#endif
#if DTLV_TABLE_VERSION >= 5
    /* strings (table version 5): the pieces of s as a new [string] at out, between the
     * matches of sep, or (sep NULL) the non-empty pieces between runs of Unicode
     * whitespace; an empty sep is refused (DTLV_STATUS_EMPTY, out unwritten) */
    dtlv_status_t (*string_split)(void *rt, const dtlv_string_t *s, const dtlv_string_t *sep,
                                  dtlv_list_t *out);
#endif
#if DTLV_TABLE_VERSION >= 6
    /* the std rider's map natives (table version 6), as the runtime does them, each with
     * its native signature (value, descriptor per parameter; result slot, descriptor) */
    dtlv_status_t (*std_map_len)(void *rt, const dtlv_map_t *m, const dtlv_tydesc_t *m_td,
                                 uint64_t *out, const dtlv_tydesc_t *out_td);
    dtlv_status_t (*std_map_insert)(void *rt, dtlv_map_t *m, const dtlv_tydesc_t *m_td,
                                    void *key, const dtlv_tydesc_t *key_td, void *value,
                                    const dtlv_tydesc_t *value_td, void *out,
                                    const dtlv_tydesc_t *out_td);
    dtlv_status_t (*std_map_get)(void *rt, const dtlv_map_t *m, const dtlv_tydesc_t *m_td,
                                 const void *key, const dtlv_tydesc_t *key_td, void *out,
                                 const dtlv_tydesc_t *out_td);
    dtlv_status_t (*std_map_at)(void *rt, const dtlv_map_t *m, const dtlv_tydesc_t *m_td,
                                const void *key, const dtlv_tydesc_t *key_td, void *out,
                                const dtlv_tydesc_t *out_td);
    dtlv_status_t (*std_map_remove)(void *rt, dtlv_map_t *m, const dtlv_tydesc_t *m_td,
                                    const void *key, const dtlv_tydesc_t *key_td, void *out,
                                    const dtlv_tydesc_t *out_td);
    dtlv_status_t (*std_map_contains)(void *rt, const dtlv_map_t *m,
                                      const dtlv_tydesc_t *m_td, const void *key,
                                      const dtlv_tydesc_t *key_td, uint8_t *out,
                                      const dtlv_tydesc_t *out_td);
#endif
#if DTLV_TABLE_VERSION >= 7
    /* strings for compiled code (table version 7): the pieces of s as string_split cuts
     * them, in a new [string] at out whose elements own nothing (heads over s's bytes,
     * valid while s is neither changed nor dropped); an empty sep gives s whole */
    void (*string_parts)(void *rt, const dtlv_string_t *s, const dtlv_string_t *sep,
                         dtlv_list_t *out);
#endif
};

/* The table behind `rt`. */
#define DTLV_RTI_TABLE(rt) (((const dtlv_rt_header_t *)(rt))->table)

/* 1 when `rt`'s table is the ABI this header describes and at least as long. */
static inline int dtlv_rti_table_ok(void *rt) {
    const dtlv_rti_table_t *t = DTLV_RTI_TABLE(rt);
    return t->abi_version == DTLV_ABI_VERSION && t->struct_size >= sizeof(dtlv_rti_table_t);
}

/* Exports the ABI version a C rider was built for: DTLV_EXPORT_RIDER(myrider). */
#define DTLV_EXPORT_RIDER(name) \
    uint32_t dtlv_rider_abi_version_##name(void) { return DTLV_ABI_VERSION; }

/* ---- wrappers: one per entry that takes rt -------------------------------------- */

static inline dtlv_status_t dtlv_rti_string_from_bytes(void *rt, const uint8_t *bytes,
                                                       size_t len, dtlv_string_t *out) {
    return DTLV_RTI_TABLE(rt)->string_from_bytes(rt, bytes, len, out);
}
static inline size_t dtlv_rti_string_len(void *rt, const dtlv_string_t *s) {
    return DTLV_RTI_TABLE(rt)->string_len(rt, s);
}
static inline const uint8_t *dtlv_rti_string_bytes(void *rt, const dtlv_string_t *s,
                                                   size_t *out_len) {
    return DTLV_RTI_TABLE(rt)->string_bytes(rt, s, out_len);
}
static inline dtlv_status_t dtlv_rti_string_push(void *rt, dtlv_string_t *s,
                                                 const uint8_t *bytes, size_t len) {
    return DTLV_RTI_TABLE(rt)->string_push(rt, s, bytes, len);
}
static inline dtlv_status_t dtlv_rti_string_concat(void *rt, const dtlv_string_t *a,
                                                   const dtlv_string_t *b, dtlv_string_t *out) {
    return DTLV_RTI_TABLE(rt)->string_concat(rt, a, b, out);
}
static inline dtlv_status_t dtlv_rti_string_slice(void *rt, const dtlv_string_t *s,
                                                  size_t start, size_t end, dtlv_string_t *out) {
    return DTLV_RTI_TABLE(rt)->string_slice(rt, s, start, end, out);
}
static inline uint8_t dtlv_rti_string_eq(void *rt, const dtlv_string_t *a,
                                         const dtlv_string_t *b) {
    return DTLV_RTI_TABLE(rt)->string_eq(rt, a, b);
}
static inline int32_t dtlv_rti_string_cmp(void *rt, const dtlv_string_t *a,
                                          const dtlv_string_t *b) {
    return DTLV_RTI_TABLE(rt)->string_cmp(rt, a, b);
}

static inline dtlv_status_t dtlv_rti_list_new(void *rt, const dtlv_tydesc_t *elem_td,
                                              size_t capacity, dtlv_list_t *out) {
    return DTLV_RTI_TABLE(rt)->list_new(rt, elem_td, capacity, out);
}
static inline size_t dtlv_rti_list_len(void *rt, const dtlv_list_t *list) {
    return DTLV_RTI_TABLE(rt)->list_len(rt, list);
}
static inline dtlv_status_t dtlv_rti_list_push(void *rt, dtlv_list_t *list,
                                               const dtlv_tydesc_t *elem_td, void *value) {
    return DTLV_RTI_TABLE(rt)->list_push(rt, list, elem_td, value);
}
static inline dtlv_status_t dtlv_rti_list_pop(void *rt, dtlv_list_t *list,
                                              const dtlv_tydesc_t *elem_td, void *out) {
    return DTLV_RTI_TABLE(rt)->list_pop(rt, list, elem_td, out);
}
static inline dtlv_status_t dtlv_rti_list_get(void *rt, const dtlv_list_t *list,
                                              const dtlv_tydesc_t *elem_td, size_t index,
                                              void *out) {
    return DTLV_RTI_TABLE(rt)->list_get(rt, list, elem_td, index, out);
}
static inline void *dtlv_rti_list_at(void *rt, const dtlv_list_t *list,
                                     const dtlv_tydesc_t *elem_td, size_t index) {
    return DTLV_RTI_TABLE(rt)->list_at(rt, list, elem_td, index);
}
static inline dtlv_status_t dtlv_rti_list_set(void *rt, dtlv_list_t *list,
                                              const dtlv_tydesc_t *elem_td, size_t index,
                                              void *value) {
    return DTLV_RTI_TABLE(rt)->list_set(rt, list, elem_td, index, value);
}
static inline dtlv_status_t dtlv_rti_list_insert(void *rt, dtlv_list_t *list,
                                                 const dtlv_tydesc_t *elem_td, size_t index,
                                                 void *value) {
    return DTLV_RTI_TABLE(rt)->list_insert(rt, list, elem_td, index, value);
}
static inline dtlv_status_t dtlv_rti_list_remove(void *rt, dtlv_list_t *list,
                                                 const dtlv_tydesc_t *elem_td, size_t index,
                                                 void *out) {
    return DTLV_RTI_TABLE(rt)->list_remove(rt, list, elem_td, index, out);
}

static inline dtlv_status_t dtlv_rti_data_make(void *rt, void *value, const dtlv_tydesc_t *td,
                                               dtlv_data_t *out) {
    return DTLV_RTI_TABLE(rt)->data_make(rt, value, td, out);
}
static inline dtlv_status_t dtlv_rti_data_type_name(void *rt, const dtlv_data_t *data,
                                                    dtlv_string_t *out) {
    return DTLV_RTI_TABLE(rt)->data_type_name(rt, data, out);
}
static inline dtlv_status_t dtlv_rti_type_name(void *rt, const dtlv_tydesc_t *td,
                                               dtlv_string_t *out) {
    return DTLV_RTI_TABLE(rt)->type_name(rt, td, out);
}

static inline dtlv_status_t dtlv_rti_clone(void *rt, const void *src, const dtlv_tydesc_t *td,
                                           void *dst) {
    return DTLV_RTI_TABLE(rt)->clone(rt, src, td, dst);
}
static inline void dtlv_rti_drop(void *rt, void *value, const dtlv_tydesc_t *td) {
    DTLV_RTI_TABLE(rt)->drop(rt, value, td);
}
static inline uint8_t dtlv_rti_eq(void *rt, const void *a, const void *b,
                                  const dtlv_tydesc_t *td) {
    return DTLV_RTI_TABLE(rt)->eq(rt, a, b, td);
}
static inline int32_t dtlv_rti_cmp(void *rt, const void *a, const void *b,
                                   const dtlv_tydesc_t *td) {
    return DTLV_RTI_TABLE(rt)->cmp(rt, a, b, td);
}
static inline dtlv_status_t dtlv_rti_format(void *rt, const void *value,
                                            const dtlv_tydesc_t *td, dtlv_string_t *out) {
    return DTLV_RTI_TABLE(rt)->format(rt, value, td, out);
}
static inline void dtlv_rti_debuglog(void *rt, const void *value, const dtlv_tydesc_t *td) {
    DTLV_RTI_TABLE(rt)->debuglog(rt, value, td);
}

static inline void dtlv_rti_error_set(void *rt, const uint8_t *message, size_t len) {
    DTLV_RTI_TABLE(rt)->error_set(rt, message, len);
}
static inline const uint8_t *dtlv_rti_error_message(void *rt, size_t *out_len) {
    return DTLV_RTI_TABLE(rt)->error_message(rt, out_len);
}
static inline void dtlv_rti_native_failed(void *rt, const uint8_t *rider, size_t rider_len,
                                          const uint8_t *function, size_t function_len,
                                          dtlv_status_t status) {
    DTLV_RTI_TABLE(rt)->native_failed(rt, rider, rider_len, function, function_len, status);
}
static inline void dtlv_rti_raise(void *rt, uint32_t kind, const uint8_t *detail, size_t len) {
    DTLV_RTI_TABLE(rt)->raise(rt, kind, detail, len);
}
static inline void dtlv_rti_raise_arith(void *rt, uint32_t kind, uint32_t op, uint32_t ty) {
    DTLV_RTI_TABLE(rt)->raise_arith(rt, kind, op, ty);
}
static inline void dtlv_rti_raise_bounds(void *rt, uint64_t index, uint64_t len) {
    DTLV_RTI_TABLE(rt)->raise_bounds(rt, index, len);
}
static inline void dtlv_rti_raise_stack_overflow(void *rt) {
    DTLV_RTI_TABLE(rt)->raise_stack_overflow(rt);
}

static inline uint8_t *dtlv_rti_shadow_push(void *rt, size_t size, size_t align) {
    return DTLV_RTI_TABLE(rt)->shadow_push(rt, size, align);
}
static inline void dtlv_rti_shadow_pop(void *rt, uint8_t *mark) {
    DTLV_RTI_TABLE(rt)->shadow_pop(rt, mark);
}

static inline const dtlv_tydesc_t *dtlv_rti_tydesc_list(void *rt, const dtlv_tydesc_t *elem) {
    return DTLV_RTI_TABLE(rt)->tydesc_list(rt, elem);
}
static inline const dtlv_tydesc_t *dtlv_rti_tydesc_option(void *rt,
                                                          const dtlv_tydesc_t *payload) {
    return DTLV_RTI_TABLE(rt)->tydesc_option(rt, payload);
}
static inline const dtlv_tydesc_t *dtlv_rti_tydesc_tuple(void *rt,
                                                         const dtlv_tydesc_t *const *fields,
                                                         size_t count) {
    return DTLV_RTI_TABLE(rt)->tydesc_tuple(rt, fields, count);
}

static inline uint8_t *dtlv_rti_alloc(void *rt, size_t size, size_t align) {
    return DTLV_RTI_TABLE(rt)->alloc(rt, size, align);
}
static inline void dtlv_rti_free(void *rt, uint8_t *ptr, size_t size, size_t align) {
    DTLV_RTI_TABLE(rt)->free(rt, ptr, size, align);
}
static inline void dtlv_rti_alloc_stats(void *rt, dtlv_alloc_stats_t *out) {
    DTLV_RTI_TABLE(rt)->alloc_stats(rt, out);
}

/* ---- the program ---- */

static inline dtlv_status_t dtlv_rti_program_args(void *rt, dtlv_list_t *out) {
    return DTLV_RTI_TABLE(rt)->program_args(rt, out);
}

static inline dtlv_status_t dtlv_rti_list_filled(void *rt, const dtlv_tydesc_t *elem_td,
                                                 size_t len, void *value, dtlv_list_t *out) {
    return DTLV_RTI_TABLE(rt)->list_filled(rt, elem_td, len, value, out);
}

static inline void dtlv_rti_error_at(void *rt, const uint8_t *site, size_t len) {
    DTLV_RTI_TABLE(rt)->error_at(rt, site, len);
}

#if DTLV_TABLE_VERSION >= 2
/* ---- maps (table version 2) ---- */

static inline const dtlv_tydesc_t *dtlv_rti_tydesc_map(void *rt, const dtlv_tydesc_t *key,
                                                       const dtlv_tydesc_t *value) {
    return DTLV_RTI_TABLE(rt)->tydesc_map(rt, key, value);
}
static inline size_t dtlv_rti_map_len(void *rt, const dtlv_map_t *map) {
    return DTLV_RTI_TABLE(rt)->map_len(rt, map);
}
static inline dtlv_status_t dtlv_rti_map_insert(void *rt, dtlv_map_t *map,
                                                const dtlv_tydesc_t *map_td, void *key,
                                                void *value) {
    return DTLV_RTI_TABLE(rt)->map_insert(rt, map, map_td, key, value);
}
static inline void *dtlv_rti_map_find(void *rt, const dtlv_map_t *map,
                                      const dtlv_tydesc_t *map_td, const void *key) {
    return DTLV_RTI_TABLE(rt)->map_find(rt, map, map_td, key);
}
static inline dtlv_status_t dtlv_rti_map_remove(void *rt, dtlv_map_t *map,
                                                const dtlv_tydesc_t *map_td, const void *key,
                                                void *out) {
    return DTLV_RTI_TABLE(rt)->map_remove(rt, map, map_td, key, out);
}
static inline void *dtlv_rti_map_entry_at(void *rt, const dtlv_map_t *map,
                                          const dtlv_tydesc_t *map_td, size_t index) {
    return DTLV_RTI_TABLE(rt)->map_entry_at(rt, map, map_td, index);
}
/* ---- bigints ---- */

static inline dtlv_status_t dtlv_rti_bigint_from_limbs(void *rt, uint8_t negative,
                                                       const uint64_t *limbs, size_t len,
                                                       dtlv_bigint_t *out) {
    return DTLV_RTI_TABLE(rt)->bigint_from_limbs(rt, negative, limbs, len, out);
}
#endif

#if DTLV_TABLE_VERSION >= 3
/* ---- enums (table version 3) ---- */

static inline const dtlv_tydesc_t *dtlv_rti_tydesc_enum(void *rt, const uint8_t *names,
                                                        size_t names_len,
                                                        const dtlv_tydesc_t *const *payloads,
                                                        size_t count) {
    return DTLV_RTI_TABLE(rt)->tydesc_enum(rt, names, names_len, payloads, count);
}
#endif

#if DTLV_TABLE_VERSION >= 4
/* ---- strings for compiled code (table version 4) ---- */

static inline dtlv_status_t dtlv_rti_string_part(void *rt, const dtlv_string_t *s,
                                                 size_t start, size_t end, uint8_t view,
                                                 dtlv_string_t *out) {
    return DTLV_RTI_TABLE(rt)->string_part(rt, s, start, end, view, out);
}
#endif

#if DTLV_TABLE_VERSION >= 5
/* ---- strings (table version 5) ---- */

static inline dtlv_status_t dtlv_rti_string_split(void *rt, const dtlv_string_t *s,
                                                  const dtlv_string_t *sep, dtlv_list_t *out) {
    return DTLV_RTI_TABLE(rt)->string_split(rt, s, sep, out);
}
#endif

#if DTLV_TABLE_VERSION >= 6
/* ---- the std rider's map natives (table version 6) ---- */

static inline dtlv_status_t dtlv_rti_std_map_len(void *rt, const dtlv_map_t *m,
                                                 const dtlv_tydesc_t *m_td, uint64_t *out,
                                                 const dtlv_tydesc_t *out_td) {
    return DTLV_RTI_TABLE(rt)->std_map_len(rt, m, m_td, out, out_td);
}
static inline dtlv_status_t dtlv_rti_std_map_insert(void *rt, dtlv_map_t *m,
                                                    const dtlv_tydesc_t *m_td, void *key,
                                                    const dtlv_tydesc_t *key_td, void *value,
                                                    const dtlv_tydesc_t *value_td, void *out,
                                                    const dtlv_tydesc_t *out_td) {
    return DTLV_RTI_TABLE(rt)->std_map_insert(rt, m, m_td, key, key_td, value, value_td, out,
                                              out_td);
}
static inline dtlv_status_t dtlv_rti_std_map_get(void *rt, const dtlv_map_t *m,
                                                 const dtlv_tydesc_t *m_td, const void *key,
                                                 const dtlv_tydesc_t *key_td, void *out,
                                                 const dtlv_tydesc_t *out_td) {
    return DTLV_RTI_TABLE(rt)->std_map_get(rt, m, m_td, key, key_td, out, out_td);
}
static inline dtlv_status_t dtlv_rti_std_map_at(void *rt, const dtlv_map_t *m,
                                                const dtlv_tydesc_t *m_td, const void *key,
                                                const dtlv_tydesc_t *key_td, void *out,
                                                const dtlv_tydesc_t *out_td) {
    return DTLV_RTI_TABLE(rt)->std_map_at(rt, m, m_td, key, key_td, out, out_td);
}
static inline dtlv_status_t dtlv_rti_std_map_remove(void *rt, dtlv_map_t *m,
                                                    const dtlv_tydesc_t *m_td, const void *key,
                                                    const dtlv_tydesc_t *key_td, void *out,
                                                    const dtlv_tydesc_t *out_td) {
    return DTLV_RTI_TABLE(rt)->std_map_remove(rt, m, m_td, key, key_td, out, out_td);
}
static inline dtlv_status_t dtlv_rti_std_map_contains(void *rt, const dtlv_map_t *m,
                                                      const dtlv_tydesc_t *m_td,
                                                      const void *key,
                                                      const dtlv_tydesc_t *key_td,
                                                      uint8_t *out,
                                                      const dtlv_tydesc_t *out_td) {
    return DTLV_RTI_TABLE(rt)->std_map_contains(rt, m, m_td, key, key_td, out, out_td);
}
#endif

#if DTLV_TABLE_VERSION >= 7
/* ---- strings for compiled code (table version 7) ---- */

static inline void dtlv_rti_string_parts(void *rt, const dtlv_string_t *s,
                                         const dtlv_string_t *sep, dtlv_list_t *out) {
    DTLV_RTI_TABLE(rt)->string_parts(rt, s, sep, out);
}
#endif

/* A convenience for C riders: a failure status with a NUL-terminated message. */
static inline dtlv_status_t dtlv_rti_fail(void *rt, const char *message) {
    size_t len = 0;
    while (message[len] != '\0') {
        len++;
    }
    dtlv_rti_error_set(rt, (const uint8_t *)message, len);
    return DTLV_STATUS_FAILED;
}

/* ---- for executables only (linked with the runtime's staticlib) ----------------- */
/* A rider never calls these: it links nothing of the runtime. */

void *dtlv_rt_create(void);
void dtlv_rt_set_stack_limit(void *rt);
int32_t dtlv_rt_finish(void *rt, uint8_t check_leaks);
void dtlv_rt_destroy(void *rt);
uint8_t dtlv_rt_abandoning(void *rt);
int32_t dtlv_rt_run_main(void (*entry)(void *rt), size_t stack_size);
/* Loads the riders `manifest` names from the executable's directory, fills `slots` with
   the natives' addresses (see runtime/rti/src/links.rs), then runs as dtlv_rt_run_main. */
int32_t dtlv_rt_run_linked(void (*entry)(void *rt), size_t stack_size,
                           const uint8_t *manifest, void **slots);

DTLV_END_DECLS

#endif /* DATALOVE_RTI_H */
