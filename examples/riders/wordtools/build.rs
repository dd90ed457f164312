// Holds every dlr_wordtools__* function in src/lib.rs to the signature rider.dli
// declares (a disagreement is a build error naming the native) and exports the rider's
// ABI version (so src/lib.rs does not call export_rider!).
fn main() {
    datalove_rider_build::check_rider("wordtools", "rider.dli");
}
