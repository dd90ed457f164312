//! The IR verifier on IR built from the input, or on a generated program's IR mutated by it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    datalove_difftest::fuzz::ir_verify(data);
});
