//! `data`: a value of any type with its descriptor, `{ desc, word }`.
//!
//! A scalar (unit, bool, every integer and float kind, index) is packed: its bytes sit
//! at the start of `word` and `desc` is the constant `datalove_rti::packed_tydesc` for
//! its kind. Anything else is boxed: `word` is the address of a counted allocation of
//! `size(T)` bytes holding the value, and `desc` is the descriptor it was made with,
//! which must outlive the data. The empty data (what `init` writes) holds unit.
//!
//! Also here: `init`, the empty value of every type, and the type-name entries.

use std::ffi::c_void;

use datalove_rti::rtdt::{Data, String as RtString};
use datalove_rti::status::{RtStatus, STATUS_OK};
use datalove_rti::table::{Rt, Td};
use datalove_rti::tydesc::UNIT_TYDESC;
use datalove_rti::{packed_tydesc, TyDesc, TyKind};

use crate::state::Runtime;
use crate::values::{data_value_ptr, is_packed};

impl Runtime {
    /// Moves the `td` value at `value` into a new data.
    ///
    /// # Safety
    /// `value` initialized; `td` outlives the data.
    pub unsafe fn make_data(&self, value: *const u8, td: &TyDesc) -> Data {
        if is_packed(td) {
            let mut word = 0u64;
            std::ptr::copy_nonoverlapping(value, (&mut word as *mut u64).cast::<u8>(), td.size);
            let desc = packed_tydesc(td.kind).expect("every scalar kind has a packed descriptor");
            Data::from_raw_parts(desc, word)
        } else {
            let boxed = self.alloc(td.size, td.align);
            std::ptr::copy_nonoverlapping(value, boxed, td.size);
            Data::from_raw_parts(td, boxed.expose_provenance() as u64)
        }
    }
}

/// The empty data: holds unit.
pub fn empty_data() -> Data {
    // SAFETY: unit is packed and its constant descriptor is static.
    unsafe { Data::from_raw_parts(&UNIT_TYDESC, 0) }
}

/// Writes the empty value of `td` at `out`: zero bytes (0, false, "", [], none) except
/// that a data holds unit (and an enum is its first variant). Allocates nothing.
///
/// # Safety
/// `out` has room for a `td` value.
pub unsafe fn init_value(out: *mut u8, td: &TyDesc) {
    std::ptr::write_bytes(out, 0, td.size);
    match td.kind {
        TyKind::Data => out.cast::<Data>().write(empty_data()),
        TyKind::Tuple | TyKind::Record => {
            for field in td.fields() {
                init_value(out.add(field.offset), &*field.desc);
            }
        }
        // The first variant, its payload empty.
        TyKind::Enum if td.field_count > 0 => {
            let payload = &td.fields()[0];
            init_value(out.add(payload.offset), &*payload.desc);
        }
        _ => {}
    }
}

// ---- table entries ----

pub(crate) unsafe extern "C" fn init(out: *mut c_void, td: Td) {
    init_value(out.cast(), &*td)
}

pub(crate) unsafe extern "C" fn data_borrow(
    data: *const Data,
    scratch: *mut u64,
    out_ptr: *mut *const c_void,
    out_td: *mut Td,
) {
    let data = &*data;
    let (value, td) = data_value_ptr(data);
    if is_packed(td) {
        let (_, word) = data.raw_parts();
        scratch.write(word);
        *out_ptr = scratch.cast_const().cast();
    } else {
        *out_ptr = value.cast();
    }
    *out_td = td;
}

pub(crate) unsafe extern "C" fn data_make(
    rt: Rt,
    value: *mut c_void,
    td: Td,
    out: *mut Data,
) -> RtStatus {
    out.write(Runtime::from_handle(rt).make_data(value.cast(), &*td));
    STATUS_OK
}

pub(crate) unsafe extern "C" fn data_type_name(
    rt: Rt,
    data: *const Data,
    out: *mut RtString,
) -> RtStatus {
    let (desc, _) = (*data).raw_parts();
    type_name(rt, desc, out)
}

pub(crate) unsafe extern "C" fn type_name(rt: Rt, td: Td, out: *mut RtString) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    out.write(rt.new_string(&(*td).type_name()));
    STATUS_OK
}
