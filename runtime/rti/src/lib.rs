//! The datalove native-call ABI.
//!
//! Everything a rider (a package of natives) and compiled code share with the runtime:
//! the `repr(C)` value types ([`rtdt`]), type descriptors ([`TyDesc`]), the one layout
//! function ([`layout::compute_layout`]), the runtime header ([`RtHeader`]) and table of
//! entry points ([`RtiTable`]), status codes, the [`call`] wrappers that reach the table
//! through `rt`, and [`rider_helpers`] for writing natives in Rust.
//!
//! This crate depends on nothing, so a rider that depends on it alone links nothing of
//! the runtime. The C view of the same ABI is `runtime/include/datalove_rti.h`.

/// Declares an enum whose discriminants are part of the ABI once: each variant with its
/// number and the words it is spelled with, from which `from_u32` (the variant a number
/// names, if any) and `name` are derived.
macro_rules! abi_enum {
    (
        $(#[$attr:meta])*
        pub enum $name:ident {
            $($(#[$variant_attr:meta])* $variant:ident = $value:literal => $words:literal,)*
        }
    ) => {
        $(#[$attr])*
        #[repr(u32)]
        pub enum $name {
            $($(#[$variant_attr])* $variant = $value,)*
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The variant spelled `words`, if there is one.
            pub fn from_name(words: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.name() == words)
            }

            /// The variant numbered `value`, if there is one.
            pub fn from_u32(value: u32) -> Option<$name> {
                match value {
                    $($value => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// The words this variant is spelled with.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $words,)*
                }
            }
        }
    };
}

pub mod call;
pub mod header;
pub mod layout;
pub mod links;
pub mod order;
pub mod rider_helpers;
pub mod rtdt;
pub mod site;
pub mod status;
pub mod table;
pub mod tydesc;

pub use header::RtHeader;
pub use layout::{compute_layout, Layout};
pub use links::RiderManifest;
pub use site::SourceLoc;
pub use status::{ArithOp, ErrorKind, RtStatus, STATUS_OK};
pub use table::{
    table_version_of, AllocStats, Entry, RtiTable, Word, ABI_VERSION, TABLE_SIZES, TABLE_VERSION,
};
pub use tydesc::{packed_tydesc, same_tydesc, TyDesc, TyField, TyKind};

/// The symbol of a native: `dlr_<rider>__<function>`. The only place it is spelled.
pub fn native_symbol(rider: &str, function: &str) -> std::string::String {
    format!("dlr_{rider}__{function}")
}

/// The `(rider, function)` a symbol of [`native_symbol`]'s form names, if it is one
/// (crash reports read a faulting address's symbol back this way).
pub fn native_of_symbol(symbol: &str) -> Option<(&str, &str)> {
    let (rider, function) = symbol.strip_prefix("dlr_")?.split_once("__")?;
    (!rider.is_empty() && !function.is_empty()).then_some((rider, function))
}

/// The symbol a rider library exports with the ABI version it was built for: a
/// `extern "C" fn() -> u32`. Spelled here only; see [`export_rider!`].
pub fn rider_abi_symbol(rider: &str) -> std::string::String {
    format!("dtlv_rider_abi_version_{rider}")
}

/// Exports the ABI version a rider was built for, under [`rider_abi_symbol`]'s name.
/// `export_rider!(std);` in the rider's `lib.rs`, for a rider built without
/// `datalove-rider-build`, whose generated file already exports it (unless its build
/// script turns that off with `.export_abi_version(false)`; with both, the build stops
/// naming this call).
#[macro_export]
macro_rules! export_rider {
    ($rider:ident) => {
        $crate::__export_rider_paste!($rider);
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __export_rider_paste {
    ($rider:ident) => {
        const _: () = {
            #[export_name = concat!("dtlv_rider_abi_version_", stringify!($rider))]
            pub extern "C" fn __datalove_rider_abi_version() -> u32 {
                $crate::ABI_VERSION
            }
        };
    };
}
