//! The text front end: conformance-case text in, a program or diagnostics out, never a panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    datalove_difftest::fuzz::front_end(data);
});
