//! The generator's program of the input's choices, run on the backends and compared.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    datalove_difftest::fuzz::differential(data);
});
