//! Rust values a program's functions take and return: each Rust type names the IR type
//! it stands for, and moves into and out of the runtime's representation through the
//! descriptor the ABI passes with every value (`TyDesc`, the one layout).
//!
//! | Rust | IR |
//! |---|---|
//! | `()` | `unit` |
//! | `bool` | `bool` |
//! | `u8` `u16` `u32` `u64` `i8` `i16` `i32` `i64` `f32` `f64` | the same |
//! | `String` | `string` |
//! | `Vec<T>` | `[T]` |
//! | `Option<T>` | `?T` |
//! | `(A, B)` ... up to four fields | a tuple |

use std::mem::MaybeUninit;

use datalove_ir::IrType;
use datalove_rti::call::{dtlv_rti_list_new, dtlv_rti_list_push, dtlv_rti_string_from_bytes};
use datalove_rti::rtdt::{self, RtHandle};
use datalove_rti::status::STATUS_OK;
use datalove_rti::TyDesc;

/// A Rust value that stands for a value of one IR type.
///
/// Implemented for the types in the table of [`crate::value`]; the methods are the
/// facade's, called with the descriptor the native-call ABI passes.
pub trait Value: Sized + Send + 'static {
    /// The IR type this Rust type stands for.
    fn ir_type() -> IrType;

    /// Writes `self` as a runtime value at `out`, which has room for a `td` value.
    ///
    /// # Safety
    /// `rt` must be live; `td` must describe [`Value::ir_type`]; `out` must have
    /// `td.size` bytes at `td.align`.
    #[doc(hidden)]
    unsafe fn write(self, rt: RtHandle, td: &TyDesc, out: *mut u8) -> Result<(), String>;

    /// Reads the runtime value at `at` (which stays the runtime's, to drop).
    ///
    /// # Safety
    /// `at` must hold an initialized value described by `td`, which describes
    /// [`Value::ir_type`].
    #[doc(hidden)]
    unsafe fn read(td: &TyDesc, at: *const u8) -> Self;
}

macro_rules! scalar_value {
    ($($rust:ty => $ir:ident),* $(,)?) => {$(
        impl Value for $rust {
            fn ir_type() -> IrType {
                IrType::$ir
            }

            unsafe fn write(self, _rt: RtHandle, _td: &TyDesc, out: *mut u8) -> Result<(), String> {
                (out as *mut $rust).write_unaligned(self);
                Ok(())
            }

            unsafe fn read(_td: &TyDesc, at: *const u8) -> Self {
                (at as *const $rust).read_unaligned()
            }
        }
    )*};
}

scalar_value!(
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    f32 => F32, f64 => F64,
);

impl Value for () {
    fn ir_type() -> IrType {
        IrType::Unit
    }

    unsafe fn write(self, _rt: RtHandle, _td: &TyDesc, _out: *mut u8) -> Result<(), String> {
        Ok(())
    }

    unsafe fn read(_td: &TyDesc, _at: *const u8) -> Self {}
}

impl Value for bool {
    fn ir_type() -> IrType {
        IrType::Bool
    }

    unsafe fn write(self, _rt: RtHandle, _td: &TyDesc, out: *mut u8) -> Result<(), String> {
        *out = self as u8;
        Ok(())
    }

    unsafe fn read(_td: &TyDesc, at: *const u8) -> Self {
        *at != 0
    }
}

impl Value for String {
    fn ir_type() -> IrType {
        IrType::String
    }

    unsafe fn write(self, rt: RtHandle, _td: &TyDesc, out: *mut u8) -> Result<(), String> {
        let out = &mut *(out as *mut MaybeUninit<rtdt::String>);
        match dtlv_rti_string_from_bytes(rt, self.as_bytes(), out) {
            STATUS_OK => Ok(()),
            status => Err(format!("cannot make a string (status {status})")),
        }
    }

    unsafe fn read(_td: &TyDesc, at: *const u8) -> Self {
        let s = &*(at as *const rtdt::String);
        String::from_utf8_lossy(s.as_bytes()).into_owned()
    }
}

/// Room for one value of `td`, aligned for any of ours (at most 8).
fn scratch(td: &TyDesc) -> Vec<u64> {
    assert!(td.align <= 8, "no value is aligned past 8 bytes");
    vec![0u64; td.size.div_ceil(8).max(1)]
}

impl<T: Value> Value for Vec<T> {
    fn ir_type() -> IrType {
        IrType::list(T::ir_type())
    }

    unsafe fn write(self, rt: RtHandle, td: &TyDesc, out: *mut u8) -> Result<(), String> {
        let elem = td.elem();
        let list = &mut *(out as *mut MaybeUninit<rtdt::List>);
        if dtlv_rti_list_new(rt, elem, self.len(), list) != STATUS_OK {
            return Err("cannot make a list".into());
        }
        let list = list.assume_init_mut();
        for item in self {
            let mut room = scratch(elem);
            let at = room.as_mut_ptr() as *mut u8;
            if let Err(e) = item.write(rt, elem, at) {
                datalove_rti::call::dtlv_rti_drop(rt, out as *mut _, td);
                return Err(e);
            }
            // The element is the list's afterwards, whatever the status.
            if dtlv_rti_list_push(rt, list, elem, at as *mut _) != STATUS_OK {
                datalove_rti::call::dtlv_rti_drop(rt, out as *mut _, td);
                return Err("cannot grow a list".into());
            }
        }
        Ok(())
    }

    unsafe fn read(td: &TyDesc, at: *const u8) -> Self {
        let elem = td.elem();
        let list = &*(at as *const rtdt::List);
        let (items, len, _) = list.raw_parts();
        (0..len)
            .map(|i| T::read(elem, items.add(i * elem.size)))
            .collect()
    }
}

impl<T: Value> Value for Option<T> {
    fn ir_type() -> IrType {
        IrType::option(T::ir_type())
    }

    unsafe fn write(self, rt: RtHandle, td: &TyDesc, out: *mut u8) -> Result<(), String> {
        std::ptr::write_bytes(out, 0, td.size);
        match self {
            None => Ok(()),
            Some(payload) => {
                payload.write(rt, td.elem(), out.add(td.payload_offset))?;
                *out = 1;
                Ok(())
            }
        }
    }

    unsafe fn read(td: &TyDesc, at: *const u8) -> Self {
        (*at != 0).then(|| T::read(td.elem(), at.add(td.payload_offset)))
    }
}

macro_rules! tuple_value {
    ($($field:ident $index:tt),+) => {
        impl<$($field: Value),+> Value for ($($field,)+) {
            fn ir_type() -> IrType {
                IrType::Tuple(vec![$($field::ir_type()),+])
            }

            unsafe fn write(self, rt: RtHandle, td: &TyDesc, out: *mut u8) -> Result<(), String> {
                let fields = td.fields();
                let mut written = 0usize;
                let result = (|| {
                    $(
                        let field = &fields[$index];
                        self.$index.write(rt, &*field.desc, out.add(field.offset))?;
                        written += 1;
                    )+
                    Ok(())
                })();
                if result.is_err() {
                    // The fields written before the one that failed are dropped.
                    for field in &fields[..written] {
                        datalove_rti::call::dtlv_rti_drop(rt, out.add(field.offset) as *mut _, &*field.desc);
                    }
                }
                result
            }

            unsafe fn read(td: &TyDesc, at: *const u8) -> Self {
                let fields = td.fields();
                ($($field::read(&*fields[$index].desc, at.add(fields[$index].offset)),)+)
            }
        }
    };
}

tuple_value!(A 0);
tuple_value!(A 0, B 1);
tuple_value!(A 0, B 1, C 2);
tuple_value!(A 0, B 1, C 2, D 3);

/// The arguments of a call: a tuple of [`Value`]s, `()` for none.
pub trait Params: Send + 'static {
    /// The IR types of the arguments, in order.
    fn ir_types() -> Vec<IrType>;

    /// Each argument, ready to be written where the program asks for it.
    fn into_writers(self) -> Vec<Writer>;
}

/// One argument, moved to the program's thread and written there.
pub type Writer = Box<dyn FnOnce(RtHandle, &TyDesc, *mut u8) -> Result<(), String> + Send>;

fn writer<T: Value>(value: T) -> Writer {
    // SAFETY: called by the `arg` native with its result's descriptor, checked to be
    // `T`'s type when the function was looked up.
    Box::new(move |rt, td, out| unsafe { value.write(rt, td, out) })
}

impl Params for () {
    fn ir_types() -> Vec<IrType> {
        Vec::new()
    }

    fn into_writers(self) -> Vec<Writer> {
        Vec::new()
    }
}

macro_rules! params {
    ($($field:ident $index:tt),+) => {
        impl<$($field: Value),+> Params for ($($field,)+) {
            fn ir_types() -> Vec<IrType> {
                vec![$($field::ir_type()),+]
            }

            fn into_writers(self) -> Vec<Writer> {
                vec![$(writer(self.$index)),+]
            }
        }
    };
}

params!(A 0);
params!(A 0, B 1);
params!(A 0, B 1, C 2);
params!(A 0, B 1, C 2, D 3);
params!(A 0, B 1, C 2, D 3, E 4);
params!(A 0, B 1, C 2, D 3, E 4, F 5);
