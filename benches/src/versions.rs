//! The versions of a benchmark that run side by side: datalove's four backends and the
//! peers (C at -O2, Rust std, LuaJIT, LuaJIT with its JIT off, Lua 5.4, Python 3).

use serde::{Deserialize, Serialize};

use crate::programs::{Benchmark, Peers};

/// One version of a benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Version {
    Interp,
    Jit,
    Aot,
    C,
    /// The C program, `cc -O2`: the reference every ratio is to (but for the
    /// collection programs).
    PeerC,
    /// The Rust program, `rustc -O`, std only: the reference of the collection
    /// programs.
    RustStd,
    LuaJit,
    /// LuaJIT's interpreter alone (`luajit -joff`): the interpreter to beat.
    LuaJitOff,
    Lua54,
    Python,
}

impl Version {
    /// Report order: the reference, datalove's backends, then the peers.
    pub const ALL: [Version; 10] = [
        Version::PeerC,
        Version::RustStd,
        Version::Interp,
        Version::Jit,
        Version::Aot,
        Version::C,
        Version::LuaJit,
        Version::LuaJitOff,
        Version::Lua54,
        Version::Python,
    ];

    /// The name on the command line and in JSON.
    pub fn key(self) -> &'static str {
        match self {
            Version::Interp => "interp",
            Version::Jit => "jit",
            Version::Aot => "aot",
            Version::C => "c",
            Version::PeerC => "C",
            Version::RustStd => "rust",
            Version::LuaJit => "luajit",
            Version::LuaJitOff => "luajit-joff",
            Version::Lua54 => "lua5.4",
            Version::Python => "python3",
        }
    }

    /// The name in reports.
    pub fn label(self) -> &'static str {
        match self {
            Version::Interp => "interp",
            Version::Jit => "jit",
            Version::Aot => "aot",
            Version::C => "c",
            Version::PeerC => "C -O2",
            Version::RustStd => "Rust std",
            Version::LuaJit => "LuaJIT",
            Version::LuaJitOff => "LuaJIT -joff",
            Version::Lua54 => "Lua 5.4",
            Version::Python => "Python 3",
        }
    }

    pub fn from_key(key: &str) -> Option<Version> {
        Version::ALL.into_iter().find(|v| v.key() == key)
    }

    /// The datalove backend this version runs on, if it is one.
    pub fn backend(self) -> Option<datalove::Backend> {
        match self {
            Version::Interp => Some(datalove::Backend::Interp),
            Version::Jit => Some(datalove::Backend::Jit),
            Version::Aot => Some(datalove::Backend::Aot),
            Version::C => Some(datalove::Backend::C),
            _ => None,
        }
    }

    /// Whether the program is compiled in the process that runs it (interp, jit): its
    /// time is reported net of that compilation, which is reported beside it.
    pub fn compiles_in_process(self) -> bool {
        matches!(self, Version::Interp | Version::Jit)
    }

    /// Whether it is built once into an executable before it is timed.
    pub fn builds_executable(self) -> bool {
        matches!(
            self,
            Version::Aot | Version::C | Version::PeerC | Version::RustStd
        )
    }

    /// Whether `benchmark` has this version.
    pub fn applies_to(self, benchmark: &Benchmark) -> bool {
        if self == Version::RustStd {
            return benchmark.has_rust_peer();
        }
        match benchmark.peers {
            Peers::All => true,
            Peers::NativeCall => {
                self.backend().is_some() || matches!(self, Version::PeerC | Version::LuaJit)
            }
            Peers::Collections => self != Version::PeerC,
        }
    }

    /// What the peer is, for the report.
    pub fn description(self) -> &'static str {
        match self {
            Version::Interp => "datalove's interpreter (`datalove run --backend interp`)",
            Version::Jit => "datalove's Cranelift JIT (`--backend jit`)",
            Version::Aot => "datalove's Cranelift object + `cc` link (`datalove build --backend aot`)",
            Version::C => "datalove's C backend, compiled by `cc -O2` (`datalove build --backend c`)",
            Version::PeerC => "the same algorithm in C, `cc -O2 -ffp-contract=off` (the reference: ratios are to it)",
            Version::RustStd => "the same program in Rust, std only (`BTreeMap`, `Vec::sort`, `String`), `rustc -O --edition 2021` (the reference of the collection programs, which have no C version)",
            Version::LuaJit => "LuaJIT with its trace compiler (native-call loop: its FFI)",
            Version::LuaJitOff => "LuaJIT's hand-written interpreter alone (`luajit -joff`)",
            Version::Lua54 => "the reference Lua 5.4 interpreter",
            Version::Python => "CPython 3",
        }
    }
}

/// Parses a comma-separated list of version keys.
pub fn parse_list(text: &str) -> Result<Vec<Version>, String> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|key| {
            Version::from_key(key).ok_or_else(|| {
                let keys: Vec<&str> = Version::ALL.iter().map(|v| v.key()).collect();
                format!("unknown version `{key}` (one of {})", keys.join(", "))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_native_calls_have_four_peers_fewer() {
        for v in Version::ALL {
            assert_eq!(Version::from_key(v.key()), Some(v));
        }
        let noop = crate::programs::find("noop").unwrap();
        let with: Vec<Version> = Version::ALL
            .into_iter()
            .filter(|v| v.applies_to(noop))
            .collect();
        assert_eq!(with.len(), 6);
        // The collection programs: no C, Rust std instead.
        let sort = crate::programs::find("sort-int").unwrap();
        assert!(Version::RustStd.applies_to(sort) && !Version::PeerC.applies_to(sort));
        assert!(!Version::RustStd.applies_to(crate::programs::find("fib").unwrap()));
        assert_eq!(Version::from_key("rust"), Some(Version::RustStd));
        assert!(parse_list("interp,C").is_ok());
        assert!(parse_list("interp,perl").unwrap_err().contains("perl"));
    }
}
