//! Helpers for writing natives in Rust.
