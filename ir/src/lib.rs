//! The datalove IR and everything that produces it.
//!
//! One typed program representation is compiled once here and run by four backends.
//! This crate holds the IR ([`program`]), its types ([`types`]), natives and their one
//! call-shape decision ([`native::NativeContext`]), the `.dli` rider-interface parser
//! ([`dli`]), diagnostics ([`diag`]), the builder, verifier and printer.

pub mod builder;
pub mod diag;
pub mod dli;
pub mod front;
pub mod native;
pub mod program;
pub mod print;
pub mod types;
pub mod verify;

pub use diag::{Diagnostic, FileId, Sources, Span};
pub use native::{
    native_symbol, word_count, NativeContext, NativeDecl, RiderInterface, MAX_C_WORDS,
};
pub use program::*;
pub use types::{IrType, ParamMode, TypeClass, TypeParam};
