//! The datalove runtime.
