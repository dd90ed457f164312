//! Checks the natives in src/lib.rs against rider.dli (a disagreement is a build error
//! naming the native) and generates the ABI-version export.
fn main() {
    datalove_rider_build::check_rider("std", "rider.dli");
}
