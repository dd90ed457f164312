//! What one harness run found, as it is reported and kept (JSON history): the figures
//! per benchmark and version, and the other figures (native calls, compile-time growth,
//! start to first output).

use serde::{Deserialize, Serialize};

use crate::versions::Version;

/// The history format; a file of another format is refused by `compare`.
pub const FORMAT: u32 = 1;

/// Median, minimum and maximum of a set of figures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// The spread of `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        Some(Spread {
            median,
            min: sorted[0],
            max: sorted[n - 1],
        })
    }

    /// The median absolute deviation of `values` over their median: how far a typical
    /// figure was from the middle (an outlier moves it little).
    pub fn relative_mad(values: &[f64]) -> Option<f64> {
        let median = Spread::of(values)?.median;
        if median == 0.0 {
            return None;
        }
        let deviations: Vec<f64> = values.iter().map(|v| (v - median).abs()).collect();
        Spread::of(&deviations).map(|d| d.median / median)
    }

    /// (max - min) / median: how noisy the figures were.
    pub fn relative_range(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            (self.max - self.min) / self.median
        }
    }
}

/// How a version fared on a benchmark.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "why", rename_all = "snake_case")]
pub enum Status {
    Ok,
    /// A tool it needs is missing here (never a failure).
    Unavailable(String),
    /// Its output was not the expected one.
    WrongOutput(String),
    /// It did not build, or did not exit 0.
    Failed(String),
}

impl Status {
    pub fn is_ok(&self) -> bool {
        matches!(self, Status::Ok)
    }

    /// A short word for tables.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Unavailable(_) => "n/a",
            Status::WrongOutput(_) => "WRONG",
            Status::Failed(_) => "FAILED",
        }
    }
}

/// One version of one benchmark.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VersionRecord {
    pub version: Version,
    pub status: Status,
    /// Per round, in milliseconds: the figure compared with C's, the process's CPU time
    /// (user + system) at the timed size less its CPU time at the empty size: the work,
    /// net of start-up and compilation.
    pub times_ms: Vec<f64>,
    /// Per round, the wall time of the run at the timed size, whole.
    pub wall_ms: Vec<f64>,
    /// Per round, the CPU time of the run at the empty size (start-up, compilation).
    #[serde(default)]
    pub empty_ms: Vec<f64>,
    pub time: Option<Spread>,
    /// The ratio to the reference's time in the same round (C's, or Rust std's for the
    /// collection programs): per round, and their spread.
    #[serde(default)]
    pub ratios: Vec<f64>,
    pub ratio: Option<Spread>,
    /// interp, jit: the median of front end + compilation per run. aot, c, C: the build
    /// (front end + code generation + C compiler + link), once.
    pub compile_ms: Option<f64>,
    /// Callgrind: instructions at the callgrind size, less those at the empty size.
    pub instructions: Option<u64>,
    pub instructions_ratio: Option<f64>,
}

impl VersionRecord {
    pub fn new(version: Version, status: Status) -> VersionRecord {
        VersionRecord {
            version,
            status,
            times_ms: Vec::new(),
            wall_ms: Vec::new(),
            empty_ms: Vec::new(),
            time: None,
            ratios: Vec::new(),
            ratio: None,
            compile_ms: None,
            instructions: None,
            instructions_ratio: None,
        }
    }
}

fn peer_c() -> Version {
    Version::PeerC
}

/// One benchmark.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchRecord {
    pub name: String,
    pub size: u64,
    /// The version every ratio is to: C -O2, or Rust std for the collection programs
    /// (records from before Rust std have none: C).
    #[serde(default = "peer_c")]
    pub reference: Version,
    pub versions: Vec<VersionRecord>,
    /// A benchmark whose growth is measured (the collection programs): the same
    /// versions timed in the same run at a tenth of `size`, as a record of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenth: Option<Box<BenchRecord>>,
}

impl BenchRecord {
    pub fn version(&self, v: Version) -> Option<&VersionRecord> {
        self.versions.iter().find(|r| r.version == v)
    }

    /// This record and the one at a tenth of its size, if there is one.
    pub fn with_tenth(&self) -> impl Iterator<Item = &BenchRecord> {
        std::iter::once(self).chain(self.tenth.as_deref())
    }
}

/// Native calls: ns per call net of start-up, from the `noop` benchmark.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NativeCallRecord {
    pub calls: u64,
    /// Per version: median ns per call and its ratio to the C loop's.
    pub versions: Vec<(Version, f64, Option<f64>)>,
}

/// One stage of the compile-time figure.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GrowthStage {
    /// `check`, a backend, or `C -O2` (gcc on the generated C).
    pub stage: String,
    pub base_ms: Option<Spread>,
    pub large_ms: Option<Spread>,
    /// Median large / median base.
    pub growth: Option<f64>,
    #[serde(default)]
    pub problem: Option<String>,
}

/// Compile time of the generated program and of one ten times larger.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GrowthRecord {
    pub base_lines: usize,
    pub large_lines: usize,
    pub stages: Vec<GrowthStage>,
}

/// Start to first output of the generated base program.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StartupRecord {
    pub lines: usize,
    pub versions: Vec<(Version, Status, Option<Spread>)>,
}

/// Time or instruction counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Time,
    Callgrind,
}

/// One harness run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    pub format: u32,
    /// UTC, `YYYY-MM-DD HH:MM`.
    pub date: String,
    /// `git describe`-like: the commit, `+dirty` when the tree had changes.
    pub commit: String,
    pub machine: String,
    pub platform: String,
    pub emulated: bool,
    pub mode: Mode,
    pub rounds: usize,
    pub tools: Vec<(String, String)>,
    pub benchmarks: Vec<BenchRecord>,
    pub native_calls: Option<NativeCallRecord>,
    pub compile_growth: Option<GrowthRecord>,
    pub startup: Option<StartupRecord>,
    /// How long the whole run took.
    pub seconds: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_take_the_middle() {
        let s = Spread::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        assert_eq!(Spread::of(&[4.0, 1.0, 2.0, 3.0]).unwrap().median, 2.5);
        assert!(Spread::of(&[]).is_none());
        assert!((Spread::of(&[1.0, 2.0, 3.0]).unwrap().relative_range() - 1.0).abs() < 1e-12);
        // Deviations from 10: 0, 1, 1, 10 -> median 1, over 10.
        assert_eq!(
            Spread::relative_mad(&[10.0, 9.0, 11.0, 20.0, 10.0]),
            Some(0.1)
        );
    }

    #[test]
    fn statuses_serialize_readably() {
        let json = serde_json::to_string(&Status::Unavailable("no luajit".into())).unwrap();
        assert_eq!(json, r#"{"kind":"unavailable","why":"no luajit"}"#);
        let back: Status = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Status::Unavailable("no luajit".into()));
    }
}
