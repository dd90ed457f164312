//! The static table every runtime's header points at.

use datalove_rti::{RtiTable, ABI_VERSION};

use crate::{
    alloc, args, bigints, data, errors, lists, maps, natives, shadow, strings, tydescs, values,
};

/// The runtime's entry points, in `RtiTable` order.
pub static TABLE: RtiTable = RtiTable {
    abi_version: ABI_VERSION,
    struct_size: std::mem::size_of::<RtiTable>(),

    init: data::init,
    data_borrow: data::data_borrow,
    field_offset: tydescs::field_offset,
    field_tydesc: tydescs::field_tydesc,
    payload_offset: tydescs::payload_offset,
    payload_tydesc: tydescs::payload_tydesc,

    string_from_bytes: strings::string_from_bytes,
    string_len: strings::string_len,
    string_bytes: strings::string_bytes,
    string_push: strings::string_push,
    string_concat: strings::string_concat,
    string_slice: strings::string_slice,
    string_eq: strings::string_eq,
    string_cmp: strings::string_cmp,

    list_new: lists::list_new,
    list_len: lists::list_len,
    list_push: lists::list_push,
    list_pop: lists::list_pop,
    list_get: lists::list_get,
    list_at: lists::list_at,
    list_set: lists::list_set,
    list_insert: lists::list_insert,
    list_remove: lists::list_remove,

    data_make: data::data_make,
    data_type_name: data::data_type_name,
    type_name: data::type_name,

    clone: values::clone,
    drop: values::drop,
    eq: values::eq,
    cmp: values::cmp,
    format: values::format,
    debuglog: values::debuglog,

    error_set: errors::error_set,
    error_message: errors::error_message,
    native_failed: errors::native_failed,
    raise: errors::raise,
    raise_arith: errors::raise_arith,
    raise_bounds: errors::raise_bounds,
    raise_stack_overflow: errors::raise_stack_overflow,

    shadow_push: shadow::shadow_push,
    shadow_pop: shadow::shadow_pop,

    tydesc_list: tydescs::tydesc_list,
    tydesc_option: tydescs::tydesc_option,
    tydesc_tuple: tydescs::tydesc_tuple,

    alloc: alloc::alloc,
    free: alloc::free,
    alloc_stats: alloc::alloc_stats,

    program_args: args::program_args,
    list_filled: lists::list_filled,
    error_at: errors::error_at,

    tydesc_map: tydescs::tydesc_map,
    map_len: maps::map_len,
    map_insert: maps::map_insert,
    map_find: maps::map_find,
    map_remove: maps::map_remove,
    map_entry_at: maps::map_entry_at,
    bigint_from_limbs: bigints::bigint_from_limbs,
    tydesc_enum: tydescs::tydesc_enum,
    string_part: strings::string_part,
    string_split: strings::string_split,
    std_map_len: natives::std_map_len,
    std_map_insert: natives::std_map_insert,
    std_map_get: natives::std_map_get,
    std_map_at: natives::std_map_at,
    std_map_remove: natives::std_map_remove,
    std_map_contains: natives::std_map_contains,
    string_parts: strings::string_parts,
};
