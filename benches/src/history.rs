//! The JSON history: every run is kept as `<out>/history/<date>-<commit>.json` (and the
//! last one as `<out>/latest.json`), so two commits can be compared: `compare` lines up
//! their ratios (or instruction ratios) benchmark by benchmark.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::record::{Mode, Record, FORMAT};
use crate::report::ratio_text;
use crate::versions::Version;

fn history_dir(out_dir: &Path) -> PathBuf {
    out_dir.join("history")
}

/// Saves `record`; the path of its history file.
pub fn save(record: &Record, out_dir: &Path) -> Result<PathBuf, String> {
    let dir = history_dir(out_dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let json = serde_json::to_string_pretty(record).map_err(|e| e.to_string())?;
    let stamp: String = record.date.chars().filter(|c| c.is_ascii_digit()).collect();
    let mode = match record.mode {
        Mode::Time => "time",
        Mode::Callgrind => "callgrind",
    };
    let target = if record.emulated { "-aarch64" } else { "" };
    let commit = record.commit.replace('+', "-");
    let path = dir.join(format!("{stamp}-{commit}-{mode}{target}.json"));
    std::fs::write(&path, &json).map_err(|e| format!("{}: {e}", path.display()))?;
    let latest = out_dir.join("latest.json");
    std::fs::write(&latest, &json).map_err(|e| format!("{}: {e}", latest.display()))?;
    Ok(path)
}

/// Reads a history file.
pub fn load(path: &Path) -> Result<Record, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let record: Record = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a benchmark record: {e}", path.display()))?;
    if record.format != FORMAT {
        return Err(format!(
            "{}: history format {} (this harness reads {FORMAT})",
            path.display(),
            record.format
        ));
    }
    Ok(record)
}

/// The history files, oldest first.
fn entries(out_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(history_dir(out_dir))
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// A history file and the run it holds.
pub type Entry = (PathBuf, Record);

/// A record named by a path, or by a commit prefix (the newest run of that commit).
pub fn find(which: &str, out_dir: &Path) -> Result<Entry, String> {
    let path = Path::new(which);
    if path.is_file() {
        return load(path).map(|r| (path.to_path_buf(), r));
    }
    for file in entries(out_dir).into_iter().rev() {
        if let Ok(record) = load(&file) {
            if record.commit.starts_with(which) {
                return Ok((file, record));
            }
        }
    }
    Err(format!(
        "no history file or commit `{which}` in {}",
        history_dir(out_dir).display()
    ))
}

/// The two newest runs, older first.
pub fn latest_two(out_dir: &Path) -> Result<(Entry, Entry), String> {
    let files = entries(out_dir);
    if files.len() < 2 {
        return Err(format!(
            "compare needs two runs in {} (found {})",
            history_dir(out_dir).display(),
            files.len()
        ));
    }
    let a = &files[files.len() - 2];
    let b = &files[files.len() - 1];
    Ok(((a.clone(), load(a)?), (b.clone(), load(b)?)))
}

/// The figure compared: the median ratio to the benchmark's reference (C, or Rust std),
/// or the instruction ratio; the reference's own median time or instructions.
fn figure(record: &Record, bench: &str, v: Version) -> Option<f64> {
    let b = record.benchmarks.iter().find(|b| b.name == bench)?;
    let r = b.version(v).filter(|r| r.status.is_ok())?;
    match record.mode {
        Mode::Time if v == b.reference => r.time.map(|t| t.median),
        Mode::Time => r.ratio.map(|x| x.median),
        Mode::Callgrind if v == b.reference => r.instructions.map(|n| n as f64),
        Mode::Callgrind => r.instructions_ratio,
    }
}

/// A Markdown comparison of `a` (before) and `b` (after).
pub fn compare(a: &Record, b: &Record) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Benchmarks compared\n");
    let _ = writeln!(
        out,
        "- before: `{}` ({} UTC, {})",
        a.commit, a.date, a.platform
    );
    let _ = writeln!(
        out,
        "- after: `{}` ({} UTC, {})\n",
        b.commit, b.date, b.platform
    );
    if a.mode != b.mode {
        let _ = writeln!(
            out,
            "> The runs measured different things (time and instruction counts); only \
             benchmarks and versions both have are shown, and the figures do not compare.\n"
        );
    }
    if a.platform != b.platform || a.machine != b.machine {
        let _ = writeln!(
            out,
            "> The runs were on different machines or platforms ({} vs {}).\n",
            a.machine, b.machine
        );
    }
    let what = match b.mode {
        Mode::Time => "time / reference time",
        Mode::Callgrind => "instructions / reference instructions",
    };
    let _ = writeln!(
        out,
        "Each row is {what} before and after, the reference being C, or Rust std for the \
         collection programs (the reference's row: its own median time in ms, or its \
         instructions); change = after / before − 1, negative is faster.\n"
    );
    let _ = writeln!(out, "| benchmark | version | before | after | change |");
    let _ = writeln!(out, "|---|---|---:|---:|---:|");
    for bench in &b.benchmarks {
        // A benchmark run at another size is not the same measurement: say so.
        let name = match a.benchmarks.iter().find(|x| x.name == bench.name) {
            Some(before) if before.size != bench.size => {
                format!("{} (size {} → {})", bench.name, before.size, bench.size)
            }
            _ => bench.name.clone(),
        };
        for v in Version::ALL {
            let (Some(x), Some(y)) = (figure(a, &bench.name, v), figure(b, &bench.name, v)) else {
                continue;
            };
            let show = |f: f64| {
                if v == bench.reference {
                    format!("{f:.1}")
                } else {
                    ratio_text(f)
                }
            };
            let change = if x > 0.0 {
                format!("{:+.1}%", (y / x - 1.0) * 100.0)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {change} |",
                name,
                v.label(),
                show(x),
                show(y)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{BenchRecord, Spread, Status, VersionRecord};

    fn record(commit: &str, jit_ratio: f64) -> Record {
        let mut c = VersionRecord::new(Version::PeerC, Status::Ok);
        c.time = Spread::of(&[10.0]);
        let mut jit = VersionRecord::new(Version::Jit, Status::Ok);
        jit.ratio = Spread::of(&[jit_ratio]);
        Record {
            format: FORMAT,
            date: "2026-01-01 00:00".into(),
            commit: commit.into(),
            machine: "m".into(),
            platform: "p".into(),
            emulated: false,
            mode: Mode::Time,
            rounds: 1,
            tools: vec![],
            benchmarks: vec![BenchRecord {
                name: "fib".into(),
                size: 30,
                reference: Version::PeerC,
                versions: vec![c, jit],
                tenth: None,
            }],
            native_calls: None,
            compile_growth: None,
            startup: None,
            seconds: 1.0,
        }
    }

    #[test]
    fn saved_runs_are_found_by_commit_and_compared() {
        let dir =
            std::env::temp_dir().join(format!("datalove-bench-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        save(&record("aaaa111", 4.0), &dir).unwrap();
        let mut newer = record("bbbb222", 2.0);
        newer.date = "2026-01-02 00:00".into();
        save(&newer, &dir).unwrap();
        let (_, a) = find("aaaa", &dir).unwrap();
        assert_eq!(a.commit, "aaaa111");
        let ((_, x), (_, y)) = latest_two(&dir).unwrap();
        assert_eq!(
            (x.commit.as_str(), y.commit.as_str()),
            ("aaaa111", "bbbb222")
        );
        let text = compare(&x, &y);
        assert!(
            text.contains("| fib | jit | 4.00x | 2.00x | -50.0% |"),
            "{text}"
        );
        assert!(find("cccc", &dir).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
