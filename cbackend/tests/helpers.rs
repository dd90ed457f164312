//! `c/dtlv_c.h` is real C: compiled on its own, each helper checked against what the
//! interpreter computes (Rust's `as` for conversions, its checked-cast rule).

mod common;

use std::fmt::Write;

use datalove_cbackend::hex_float;

const SAMPLES: [f64; 14] = [
    0.0,
    -0.0,
    0.5,
    -0.9,
    1.5,
    -1.5,
    127.9,
    128.0,
    -129.0,
    4294967295.5,
    9.3e18,
    1.9e19,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

#[test]
fn saturating_and_checked_float_conversions_match_rust() {
    if datalove_toolchain::unavailable_without_c_compiler("compiling the C helpers") {
        return;
    }
    let mut samples: Vec<f64> = SAMPLES.to_vec();
    samples.push(f64::NAN);
    let literal = |x: f64| {
        if x.is_finite() {
            hex_float(x)
        } else {
            format!("dtlv_c_f64_from_bits(UINT64_C(0x{:016x}))", x.to_bits())
        }
    };
    let mut c = String::from(
        "#include <stdio.h>\n#include <inttypes.h>\n#include \"dtlv_c.h\"\nint main(void) {\n",
    );
    let mut expected = String::new();
    for &x in &samples {
        let lit = literal(x);
        let _ = writeln!(
            c,
            "    printf(\"%\" PRId64 \" %\" PRId64 \" %\" PRIu64 \" %\" PRIu64 \"\\n\", \
             dtlv_c_f64_to_signed_sat({lit}, INT8_MIN, INT8_MAX), \
             dtlv_c_f64_to_signed_sat({lit}, INT64_MIN, INT64_MAX), \
             dtlv_c_f64_to_unsigned_sat({lit}, UINT32_MAX), \
             dtlv_c_f64_to_unsigned_sat({lit}, UINT64_MAX));"
        );
        let _ = writeln!(
            expected,
            "{} {} {} {}",
            x as i8, x as i64, x as u32, x as u64
        );
        // The checked rule for i8 (hi exact) and u64 (hi one past the range).
        let _ = writeln!(
            c,
            "    printf(\"%d %d\\n\", dtlv_c_float_cast_ok({lit}, {}, {}, 1), dtlv_c_float_cast_ok({lit}, {}, {}, 0));",
            hex_float(-128.0),
            hex_float(127.0),
            hex_float(0.0),
            hex_float(u64::MAX as f64)
        );
        let t = x.trunc();
        let ok_i8 = !x.is_nan() && (-128.0..=127.0).contains(&t);
        let ok_u64 = !x.is_nan() && t >= 0.0 && t < u64::MAX as f64;
        let _ = writeln!(expected, "{} {}", ok_i8 as u8, ok_u64 as u8);
    }
    let _ = writeln!(
        c,
        "    printf(\"%a %a\\n\", dtlv_c_f64_from_bits(UINT64_C(0x3ff8000000000000)), (double)dtlv_c_f32_from_bits(UINT32_C(0x3fc00000)));\n    return 0;\n}}"
    );
    let _ = writeln!(expected, "0x1.8p+0 0x1.8p+0");
    let dir = common::scratch("helpers");
    let out = common::compile_and_run(&dir, &c);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out, expected);
}
