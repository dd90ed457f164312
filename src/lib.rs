//! datalove: one typed program representation, four backends, one native-call ABI.
pub use datalove_ir as ir;
