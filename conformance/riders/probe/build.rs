//! Holds every `dlr_probe__*` function to the signature `rider.dli` declares; the ABI
//! version is exported by `export_rider!(probe)` in `src/lib.rs`.
fn main() {
    datalove_rider_build::RiderBuild::new("probe", "rider.dli")
        .export_abi_version(false)
        .run();
}
