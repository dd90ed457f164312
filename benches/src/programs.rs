//! The benchmark programs: what each one is, the files of its versions, and the sizes
//! it runs at (checked against a known output, timed, counted under callgrind).

use std::path::{Path, PathBuf};

use crate::versions::Version;

/// Which peers a benchmark has a version for (every benchmark has the datalove one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peers {
    /// C, Lua (LuaJIT, LuaJIT -joff, Lua 5.4) and Python.
    All,
    /// The native-call loop: C and LuaJIT's FFI only (Lua 5.4 and Python have no FFI
    /// that calls a C function directly).
    NativeCall,
    /// The collection programs: Rust std (the reference: every ratio is to it), Lua
    /// (LuaJIT, LuaJIT -joff, Lua 5.4) and Python; no C (an ordered map or a stable
    /// sort written by hand in C would be a program of its own, not a peer). Each one
    /// is also timed at a tenth of its size, for its growth.
    Collections,
}

/// One benchmark.
#[derive(Clone, Copy, Debug)]
pub struct Benchmark {
    /// The name in reports and on the command line; the file stem is the same with `-`
    /// as `_` (`spectral-norm` is `programs/spectral_norm.dfs`).
    pub name: &'static str,
    /// What it exercises.
    pub what: &'static str,
    /// The size whose output is known, and that output (the published Benchmarks Game
    /// output where there is one). Every version is checked at this size before any
    /// timing, and the smoke mode runs every program at it.
    pub check_size: u64,
    pub check_output: &'static str,
    /// The size timed by default (`--size NAME=N` changes it).
    pub run_size: u64,
    /// The size counted under callgrind (small: valgrind runs programs ~50x slower).
    pub callgrind_size: u64,
    /// A size at which the program does (almost) no work: what a run at `run_size`
    /// costs beyond it is the work itself (instruction counts and ns per call are
    /// reported net of it).
    pub empty_size: u64,
    pub peers: Peers,
}

impl Benchmark {
    pub fn stem(&self) -> String {
        self.name.replace('-', "_")
    }

    /// `programs/<stem>.<ext>`.
    pub fn file(&self, ext: &str) -> PathBuf {
        programs_dir().join(format!("{}.{ext}", self.stem()))
    }

    /// Whether this benchmark's figure is native calls (ns per call, net of start-up).
    pub fn is_native_call(&self) -> bool {
        self.peers == Peers::NativeCall
    }

    /// Whether it has a Rust std version, `programs/<stem>.rs`.
    pub fn has_rust_peer(&self) -> bool {
        self.file("rs").is_file()
    }

    /// The version every ratio of this benchmark is to: C -O2, or Rust std for the
    /// collection programs (which have no C version).
    pub fn reference(&self) -> Version {
        match self.peers {
            Peers::Collections => Version::RustStd,
            Peers::All | Peers::NativeCall => Version::PeerC,
        }
    }

    /// Whether a timed run also times it at a tenth of its size and reports the growth
    /// (time at the size / time at a tenth of it).
    pub fn measures_growth(&self) -> bool {
        self.peers == Peers::Collections
    }
}

/// `benches/programs/`.
pub fn programs_dir() -> PathBuf {
    benches_dir().join("programs")
}

/// `benches/`.
pub fn benches_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    benches_dir()
        .parent()
        .map(Path::to_path_buf)
        .expect("benches/ is inside the repository")
}

/// `words`, whose sizes and output `wordfreq` shares.
const WORDS: Benchmark = Benchmark {
    name: "words",
    what: "strings and lists: build lines, split them, sort and count the words",
    check_size: 1000,
    check_output: "8000 words, 1528 distinct\nmost frequent: ya (243)\n",
    run_size: 40_000,
    callgrind_size: 500,
    empty_size: 0,
    peers: Peers::All,
};

/// Every benchmark, in report order.
pub const BENCHMARKS: &[Benchmark] = &[
    Benchmark {
        name: "fib",
        what: "naive recursive Fibonacci: calls and checked integer arithmetic",
        check_size: 25,
        check_output: "75025\n",
        run_size: 37,
        callgrind_size: 22,
        empty_size: 0,
        peers: Peers::All,
    },
    Benchmark {
        name: "sieve",
        what: "Eratosthenes' sieve over a list of flags made at its length",
        check_size: 10000,
        check_output: "1229\n",
        run_size: 10_000_000,
        callgrind_size: 200_000,
        empty_size: 0,
        peers: Peers::All,
    },
    Benchmark {
        name: "nbody",
        what: "Benchmarks Game n-body: float arithmetic on a list of 35 floats",
        check_size: 1000,
        check_output: "-0.169075164\n-0.169087605\n",
        run_size: 500_000,
        callgrind_size: 5000,
        empty_size: 0,
        peers: Peers::All,
    },
    Benchmark {
        name: "spectral-norm",
        what: "Benchmarks Game spectral-norm: nested loops, float lists, small calls",
        check_size: 100,
        check_output: "1.274219991\n",
        run_size: 800,
        callgrind_size: 100,
        empty_size: 1,
        peers: Peers::All,
    },
    Benchmark {
        name: "fannkuch-redux",
        what: "Benchmarks Game fannkuch-redux: small integer lists, indexing, swaps",
        check_size: 7,
        check_output: "228\nPfannkuchen(7) = 16\n",
        run_size: 9,
        callgrind_size: 7,
        empty_size: 1,
        peers: Peers::All,
    },
    Benchmark {
        name: "mandelbrot",
        what: "Benchmarks Game mandelbrot (bitmap checksummed): scalar float loops",
        check_size: 200,
        check_output: "P4 200 200\n5000 bytes, checksum 18498822\n",
        run_size: 1000,
        callgrind_size: 120,
        empty_size: 0,
        peers: Peers::All,
    },
    WORDS,
    // The same words (`programs/wordgen.*`) at the same sizes, counted in a map: the
    // same output.
    Benchmark {
        name: "wordfreq",
        what: "maps: count words in a map[string, i64], walk it in key order",
        ..WORDS
    },
    Benchmark {
        name: "noop",
        what: "a C native that adds one to a u64, called in a loop (ns per call)",
        check_size: 1000,
        check_output: "1000\n",
        run_size: 100_000_000,
        callgrind_size: 100_000,
        empty_size: 0,
        peers: Peers::NativeCall,
    },
    Benchmark {
        name: "map-int",
        what: "maps: n i64 keys inserted in a scattered order, each looked up once",
        check_output: "1000 entries, sum 499500\n",
        run_size: 1_000_000,
        callgrind_size: 2000,
        ..COLLECTION
    },
    Benchmark {
        name: "map-string",
        what: "maps: n pseudo-random words counted in a map[string, i64]",
        check_output: "1000 words, 632 distinct\nmost frequent: enshi (5)\n",
        run_size: 1_000_000,
        callgrind_size: 2000,
        ..COLLECTION
    },
    Benchmark {
        name: "sort-int",
        what: "lists: n pseudo-random i64 pushed and sorted (lists.sort)",
        check_output: "1000 values, checksum 791010244\n\
                       first 705894, middle 1003159108, last 2144075787\n",
        run_size: 1_000_000,
        callgrind_size: 20_000,
        ..COLLECTION
    },
    Benchmark {
        name: "sort-string",
        what: "lists and strings: n short pseudo-random strings pushed and sorted",
        check_output: "1000 strings, 1000 distinct, checksum 299178672\n\
                       first enenlokaenpoyata, middle quenkayayanekalolo, last yayayaloenshivovolo\n",
        run_size: 1_000_000,
        callgrind_size: 10_000,
        ..COLLECTION
    },
    Benchmark {
        name: "records",
        what: "records: n five-field records pushed onto a list, then scanned",
        check_output: "1000 orders, revenue 29088737, 154 express\n\
                       largest order: 719 (99920)\nbest customer: 795 (221307)\n",
        run_size: 2_000_000,
        callgrind_size: 20_000,
        ..COLLECTION
    },
    Benchmark {
        name: "text",
        what: "strings: n lines built, joined, split into lines and words, counted",
        check_output: "1000 lines, 4308 words, 25128 bytes of words, 29435 bytes\n",
        run_size: 500_000,
        callgrind_size: 5000,
        ..COLLECTION
    },
];

/// The collection programs: a tenth of `run_size` is timed too (growth). Their
/// check size is 1000 (its output from the Rust, Lua and Python versions, which
/// agree). The maps run at 10^6 keys (and 10^5), the size issue 38 names: on the
/// runtime of `47283f3`, whose maps were sorted arrays, 2 * 10^5 keys took about 4 s on
/// the JIT and 10^6 about 100 s; on the B-tree about a second.
const COLLECTION: Benchmark = Benchmark {
    name: "",
    what: "",
    check_size: 1000,
    check_output: "",
    run_size: 0,
    callgrind_size: 0,
    empty_size: 0,
    peers: Peers::Collections,
};

/// The benchmark called `name`.
pub fn find(name: &str) -> Option<&'static Benchmark> {
    BENCHMARKS.iter().find(|b| b.name == name)
}

/// The directory of the C rider `bench` (its `rider.dli` and `bench.c`).
pub fn bench_rider_dir() -> PathBuf {
    benches_dir().join("riders/bench")
}

/// `runtime/include`, for the C rider and the native-call C loop.
pub fn rti_include_dir() -> PathBuf {
    repo_root().join("runtime/include")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_benchmark_has_its_files() {
        for b in BENCHMARKS {
            let mut exts = vec!["dfs", "lua"];
            match b.peers {
                Peers::All => exts.extend(["c", "py"]),
                Peers::NativeCall => exts.push("c"),
                Peers::Collections => exts.extend(["rs", "py"]),
            }
            for ext in exts {
                assert!(b.file(ext).is_file(), "{} has no .{ext}", b.name);
            }
            assert!(b.check_output.ends_with('\n'), "{}", b.name);
            assert!(Version::ALL.contains(&b.reference()));
            assert!(b.reference().applies_to(b), "{}", b.name);
        }
        let names: Vec<&str> = BENCHMARKS.iter().map(|b| b.name).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(names.len(), unique.len(), "two benchmarks of one name");
        assert!(bench_rider_dir().join("rider.dli").is_file());
        assert!(rti_include_dir().join("datalove_rti.h").is_file());
    }
}
