//! The `.dli` parser, and the front end on a module wrapping what it parsed.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    datalove_difftest::fuzz::dli(data);
});
