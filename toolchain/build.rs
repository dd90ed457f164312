//! Records the target this crate is compiled for, so that `Target::current()` is the
//! exact triple cargo built for (`--target` or the host).

fn main() {
    let target = std::env::var("TARGET").expect("cargo sets TARGET for build scripts");
    println!("cargo:rustc-env=DATALOVE_CURRENT_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");
}
