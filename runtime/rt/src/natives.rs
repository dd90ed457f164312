//! The natives of the `std` rider that are operations of the runtime's own maps
//! (`map_len`, `map_insert`, `map_get`, `map_at`, `map_remove`, `map_contains`), done by
//! the runtime itself (`docs/abi.md`, "Natives the runtime provides").
//!
//! Each has the native ABI of its `.dli` declaration (`docs/abi.md` §3), so compiled
//! code and the interpreter call it exactly as they call the rider's: when a program's
//! call of one of them is linked ([`crate::loader::RiderLibrary::native`]), the address
//! is this function's, not the rider library's. The rider's exports stay, and are these
//! same functions reached through the runtime table (table version 6), for anything
//! that calls the library's symbol itself. Nothing here can panic on a path a program
//! reaches; a failure is a status with the message set, as a rider's would be, in the
//! same words (the descriptor checks are the rider helpers'). What the runtime saves is
//! the rider's frame: its panic guard (a thread-local look-up in a shared library), the
//! table indirection of every step and the generic clone of the value found.

use std::ffi::c_void;

use datalove_rti::rider_helpers::{expect_key, key_and_optional_value, map_parts, Failure};
use datalove_rti::rtdt::Map;
use datalove_rti::status::{RtStatus, STATUS_FAILED, STATUS_OK};
use datalove_rti::table::{Rt, Td};
use datalove_rti::{same_tydesc, ErrorKind, TyDesc, TyKind};

use crate::maps::KEY_NOT_FOUND_MESSAGE;
use crate::state::Runtime;

/// The runtime's implementation of the `std` native whose symbol is `symbol`, if it
/// provides one: the address [`crate::loader::RiderLibrary::native`] links instead of
/// the library's.
pub fn provided(rider: &str, symbol: &str) -> Option<*const c_void> {
    if rider != "std" {
        return None;
    }
    let address: *const c_void = match symbol {
        "dlr_std__map_len" => std_map_len as *const c_void,
        "dlr_std__map_insert" => std_map_insert as *const c_void,
        "dlr_std__map_get" => std_map_get as *const c_void,
        "dlr_std__map_at" => std_map_at as *const c_void,
        "dlr_std__map_remove" => std_map_remove as *const c_void,
        "dlr_std__map_contains" => std_map_contains as *const c_void,
        _ => return None,
    };
    Some(address)
}

/// The status a native returns for `outcome`, the failure's message set.
fn answer(rt: &Runtime, outcome: Result<(), Failure>) -> RtStatus {
    match outcome {
        Ok(()) => STATUS_OK,
        Err(failure) => rt.refuse(failure.status, failure.message),
    }
}

/// Whether `m_td` is a map whose keys are `key_td`'s type: the rider helpers' test
/// ([`expect_key`]) without its words, for the path every well-typed call takes; a
/// `false` goes to the helpers, which say what is wrong.
///
/// # Safety
/// The descriptors well formed.
#[inline(always)]
unsafe fn key_fits(m_td: &TyDesc, key_td: &TyDesc) -> bool {
    m_td.kind == TyKind::Map && same_tydesc(m_td.map_parts().0, key_td)
}

/// [`key_fits`], and `out_td` is `?V` of the map's values: the value descriptor and the
/// payload's offset ([`key_and_optional_value`]'s answer), or its failure.
///
/// # Safety
/// The descriptors well formed.
#[inline(always)]
unsafe fn key_and_option<'m>(
    m_td: &'m TyDesc,
    key_td: &TyDesc,
    out_td: &TyDesc,
) -> Result<(&'m TyDesc, usize), Failure> {
    if key_fits(m_td, key_td) && out_td.kind == TyKind::Option {
        let value_td = m_td.map_parts().1;
        if same_tydesc(out_td.elem(), value_td) {
            return Ok((value_td, out_td.payload_offset));
        }
    }
    key_and_optional_value(key_td, m_td, out_td)
}

/// `map_len(ref m)`: how many entries.
///
/// # Safety
/// The native ABI: `rt` live, each pointer a value of its descriptor's type.
pub(crate) unsafe extern "C" fn std_map_len(
    rt: Rt,
    m: *const Map,
    m_td: Td,
    out: *mut u64,
    _out_td: Td,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    if (*m_td).kind == TyKind::Map {
        out.write(rt.map_len_of(&*m) as u64);
        return STATUS_OK;
    }
    answer(rt, map_parts(&*m_td).map(|_| ()))
}

/// `map_insert(mut m, key, value)`: both moved in, the map's whatever happens (a
/// refused pair is dropped).
///
/// # Safety
/// As [`std_map_len`].
pub(crate) unsafe extern "C" fn std_map_insert(
    rt: Rt,
    m: *mut Map,
    m_td: Td,
    key: *mut c_void,
    key_td: Td,
    value: *mut c_void,
    value_td: Td,
    _out: *mut c_void,
    _out_td: Td,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let (m_td, key_td, value_td) = (&*m_td, &*key_td, &*value_td);
    let fits = if key_fits(m_td, key_td) && same_tydesc(m_td.map_parts().1, value_td) {
        Ok(true)
    } else {
        map_parts(m_td).map(|(k, v)| same_tydesc(k, key_td) && same_tydesc(v, value_td))
    };
    if fits != Ok(true) {
        let message = format!(
            "a ({}, {}) entry for a {}",
            key_td.type_name(),
            value_td.type_name(),
            m_td.type_name()
        );
        rt.drop_value(key.cast(), key_td);
        rt.drop_value(value.cast(), value_td);
        return answer(
            rt,
            Err(fits
                .err()
                .unwrap_or_else(|| Failure::type_mismatch(message))),
        );
    }
    rt.map_insert_value(&mut *m, m_td, key.cast(), value.cast());
    STATUS_OK
}

/// `map_get(ref m, ref key)`: a clone of the value at `key`, or none.
///
/// # Safety
/// As [`std_map_len`].
pub(crate) unsafe extern "C" fn std_map_get(
    rt: Rt,
    m: *const Map,
    m_td: Td,
    key: *const c_void,
    key_td: Td,
    out: *mut c_void,
    out_td: Td,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let (m_td, out_td) = (&*m_td, &*out_td);
    let (value_td, offset) = match key_and_option(m_td, &*key_td, out_td) {
        Ok(parts) => parts,
        Err(failure) => return answer(rt, Err(failure)),
    };
    let out = out.cast::<u8>();
    let found = rt.map_find_value(&*m, m_td, key.cast());
    if found.is_null() {
        crate::data::init_value(out, out_td);
    } else {
        rt.clone_value(found, value_td, out.add(offset));
        // The option's tag: some.
        out.write(1);
    }
    STATUS_OK
}

/// `map_at(ref m, ref key)`: a clone of the value at `key`; a missing key raises `key
/// not found`, its detail the key as `debuglog` writes it.
///
/// # Safety
/// As [`std_map_len`].
pub(crate) unsafe extern "C" fn std_map_at(
    rt: Rt,
    m: *const Map,
    m_td: Td,
    key: *const c_void,
    key_td: Td,
    out: *mut c_void,
    _out_td: Td,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let (m_td, key_td) = (&*m_td, &*key_td);
    let parts = if key_fits(m_td, key_td) {
        Ok(m_td.map_parts())
    } else {
        expect_key(key_td, m_td).and_then(|()| map_parts(m_td))
    };
    let value_td = match parts {
        Ok((_, value_td)) => value_td,
        Err(failure) => return answer(rt, Err(failure)),
    };
    let found = rt.map_find_value(&*m, m_td, key.cast());
    if found.is_null() {
        let shown = String::from_utf8_lossy(&rt.format_value(key.cast(), key_td)).into_owned();
        rt.raise(ErrorKind::KeyNotFound, &shown);
        return rt.refuse(STATUS_FAILED, format!("{KEY_NOT_FOUND_MESSAGE}: {shown}"));
    }
    rt.clone_value(found, value_td, out.cast());
    STATUS_OK
}

/// `map_remove(mut m, ref key)`: the value at `key` moved out (the entry's key dropped),
/// or none.
///
/// # Safety
/// As [`std_map_len`].
pub(crate) unsafe extern "C" fn std_map_remove(
    rt: Rt,
    m: *mut Map,
    m_td: Td,
    key: *const c_void,
    key_td: Td,
    out: *mut c_void,
    out_td: Td,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let (m_td, out_td) = (&*m_td, &*out_td);
    let offset = match key_and_option(m_td, &*key_td, out_td) {
        Ok((_, offset)) => offset,
        Err(failure) => return answer(rt, Err(failure)),
    };
    let out = out.cast::<u8>();
    if rt.map_remove_value(&mut *m, m_td, key.cast(), out.add(offset)) {
        out.write(1);
    } else {
        crate::data::init_value(out, out_td);
    }
    STATUS_OK
}

/// `map_contains(ref m, ref key)`: whether the map has `key`.
///
/// # Safety
/// As [`std_map_len`].
pub(crate) unsafe extern "C" fn std_map_contains(
    rt: Rt,
    m: *const Map,
    m_td: Td,
    key: *const c_void,
    key_td: Td,
    out: *mut u8,
    _out_td: Td,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let (m_td, key_td) = (&*m_td, &*key_td);
    let fits = if key_fits(m_td, key_td) {
        Ok(())
    } else {
        expect_key(key_td, m_td)
    };
    answer(
        rt,
        fits.map(|()| {
            let found = rt.map_find_value(&*m, m_td, key.cast());
            out.write(u8::from(!found.is_null()));
        }),
    )
}
