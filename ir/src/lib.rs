//! The datalove IR: the one typed program representation four backends run.
//!
//! This crate holds the IR ([`program`]), its types ([`types`]), natives and their one
//! call-shape decision ([`native::NativeContext`]), the `.dli` rider-interface parser
//! ([`dli`]), diagnostics ([`diag`]), the [`builder`], [`verify`]er and [`print`]er, and
//! the lowering decisions every backend shares ([`lowering`]). It depends on the ABI
//! crate alone: an embedder that builds IR with the builder compiles no text front end
//! (that is the `datalove-front` crate, which produces this IR from source).
//!
//! Building, verifying and printing a function by hand:
//!
//! ```
//! use datalove_ir::builder::ProgramBuilder;
//! use datalove_ir::{BinaryOp, IrType, ParamMode, Terminator};
//!
//! let mut pb = ProgramBuilder::new();
//! // fun double(x: i32): i32  -- `x + x`, checked, so it needs an abandon path
//! let double = pb.declare_function("double", vec![], vec![("x".into(), ParamMode::In, IrType::I32)], IrType::I32);
//! let mut fb = pb.function(double);
//! let x = fb.param(0);
//! let overflow = fb.abandon_block(&[]);
//! let sum = fb.binary(BinaryOp::Add, x, x, Some(overflow));
//! fb.terminate(Terminator::Return(Some(sum)));
//! // the script body
//! let main = pb.declare_entry("main");
//! pb.function(main).terminate(Terminator::Return(None));
//!
//! let program = pb.finish_verified().expect("the verifier accepts it");
//! let text = datalove_ir::print::print_program(&program);
//! assert!(text.contains("s1 = add s0, s0 else abandon b1"));
//! ```

pub mod append;
pub mod bounds;
pub mod builder;
pub mod diag;
pub mod dli;
pub mod forward;
pub mod ifconv;
pub mod inline;
pub mod lowering;
pub mod map_walks;
pub mod native;
pub mod passes;
pub mod print;
pub mod program;
pub mod ranges;
pub mod slices;
pub mod split_walks;
pub mod thread;
pub mod types;
pub mod verify;
pub mod wrappers;

pub use diag::{Diagnostic, FileId, Sources, Span};
pub use native::{
    native_symbol, word_count, NativeContext, NativeDecl, RiderInterface, MAX_C_WORDS,
};
pub use program::*;
pub use types::{EnumType, IrType, ParamMode, RecordType, TypeClass, TypeParam};
