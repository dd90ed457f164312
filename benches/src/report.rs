//! The Markdown report of a run: the table of ratios to C (and, for the collection
//! programs, the table of ratios to Rust std and their growth at ten times the size),
//! the times behind them and how noisy they were, then native calls, compile-time
//! growth and start to first output.

use std::fmt::Write as _;

use crate::progress::duration_text;
use crate::record::{BenchRecord, Mode, Record, Spread, Status, VersionRecord};
use crate::versions::Version;

/// `x` with two decimals below 10, one below `tier`, else as `large` spells it.
fn two_then_one_decimal(x: f64, unit: &str, tier: f64, large: impl Fn(f64) -> String) -> String {
    if x < 10.0 {
        format!("{x:.2}{unit}")
    } else if x < tier {
        format!("{x:.1}{unit}")
    } else {
        large(x)
    }
}

/// `1.23x`, `12.3x`, `123x`.
pub fn ratio_text(x: f64) -> String {
    two_then_one_decimal(x, "x", 100.0, |x| format!("{x:.0}x"))
}

/// `0.42 ms`, `12.3 ms`, `1.23 s`.
pub fn ms_text(ms: f64) -> String {
    two_then_one_decimal(ms, " ms", 1000.0, |ms| format!("{:.2} s", ms / 1000.0))
}

fn spread_ms(s: &Spread) -> String {
    format!("{}–{}", ms_text(s.min), ms_text(s.max))
}

/// `1.2M`, `345k`.
pub fn count_text(n: u64) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.2}G", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1}M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.0}k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

/// The versions that appear in any of `benches`, in report order.
fn columns(benches: &[&BenchRecord]) -> Vec<Version> {
    Version::ALL
        .into_iter()
        .filter(|v| {
            benches
                .iter()
                .any(|b| b.versions.iter().any(|r| r.version == *v))
        })
        .collect()
}

/// The references the record's benchmarks have, in report order (C -O2, Rust std),
/// each with its benchmarks.
fn by_reference(record: &Record) -> Vec<(Version, Vec<&BenchRecord>)> {
    Version::ALL
        .into_iter()
        .map(|v| {
            let benches: Vec<&BenchRecord> = record
                .benchmarks
                .iter()
                .filter(|b| b.reference == v)
                .collect();
            (v, benches)
        })
        .filter(|(_, benches)| !benches.is_empty())
        .collect()
}

/// What a table cell shows for a version that has no figure.
fn missing(record: Option<&VersionRecord>) -> String {
    match record {
        None => "—".to_string(),
        Some(r) => r.status.word().to_string(),
    }
}

/// The report.
pub fn markdown(record: &Record, chart_file: Option<&str>) -> String {
    let mut out = String::new();
    let title = match record.mode {
        Mode::Time => "datalove benchmarks",
        Mode::Callgrind => "datalove benchmarks: instruction counts (callgrind)",
    };
    let _ = writeln!(out, "# {title}\n");
    let _ = writeln!(
        out,
        "{} UTC · commit `{}` · {} · {} · {} · run took {}\n",
        record.date,
        record.commit,
        record.machine,
        record.platform,
        match record.mode {
            Mode::Time => format!("{} rounds", record.rounds),
            Mode::Callgrind => "valgrind --tool=callgrind".to_string(),
        },
        duration_text(record.seconds)
    );
    if record.emulated {
        let _ = writeln!(
            out,
            "> **Emulated.** Every figure here was measured under qemu-aarch64 on another \
             machine: the times say nothing about aarch64 hardware; only the ratios between \
             versions carry, and those loosely (the emulator's costs are not the hardware's).\n"
        );
    }
    match record.mode {
        Mode::Time => time_tables(&mut out, record, chart_file),
        Mode::Callgrind => callgrind_tables(&mut out, record, chart_file),
    }
    other_figures(&mut out, record);
    problems(&mut out, record);
    what_ran(&mut out, record);
    out
}

/// A benchmark × version table of `benches`' versions, each cell by `cell` (given the
/// benchmark's reference), then the chart `(alt text, file)` when there is one.
fn versions_table(
    out: &mut String,
    benches: &[&BenchRecord],
    cell: impl Fn(Version, Version, Option<&VersionRecord>) -> String,
    chart: Option<(&str, &str)>,
) {
    let cols = columns(benches);
    let mut header = String::from("| benchmark | size |");
    let mut rule = String::from("|---|---:|");
    for v in &cols {
        let _ = write!(header, " {} |", v.label());
        rule.push_str("---:|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for b in benches {
        let mut row = format!("| {} | {} |", b.name, b.size);
        for v in &cols {
            let _ = write!(row, " {} |", cell(b.reference, *v, b.version(*v)));
        }
        let _ = writeln!(out, "{row}");
    }
    let _ = writeln!(out);
    if let Some((alt, file)) = chart {
        let _ = writeln!(out, "![{alt}]({file})\n");
    }
}

fn time_tables(out: &mut String, record: &Record, chart_file: Option<&str>) {
    let mut chart_file = chart_file;
    for (reference, benches) in by_reference(record) {
        let label = reference.label();
        let _ = writeln!(out, "## Time / {label} time\n");
        if reference == Version::RustStd {
            let _ = writeln!(
                out,
                "The collection programs have no C version: their reference is the same \
                 program in Rust with std only (`BTreeMap`, `Vec::sort`, `String`), and \
                 each cell here is a time over Rust std's.\n"
            );
        }
        let _ = writeln!(
            out,
            "Each cell is the median over the rounds of the version's time divided by \
             {label}'s time in the same round (lower is better; {label}'s column is its \
             median time). A version's time is its process's CPU time (user + system) at \
             the size shown less its CPU time at the empty size, measured in the same \
             round: the work itself, net of process start, compilation (interp, jit) and \
             interpreter start (Lua, Python), and not inflated by the machine's other load \
             the way wall time is. aot, c, C and Rust std are built once and their \
             executables run.\n"
        );
        versions_table(
            out,
            &benches,
            |reference, v, r| match r {
                Some(r) if r.status.is_ok() && v == reference => r
                    .time
                    .map(|t| ms_text(t.median))
                    .unwrap_or_else(|| missing(Some(r))),
                Some(r) if r.status.is_ok() => r
                    .ratio
                    .map(|x| ratio_text(x.median))
                    .unwrap_or_else(|| format!("no {}", reference.label())),
                _ => missing(r),
            },
            chart_file
                .take()
                .map(|file| ("time / reference time per benchmark", file)),
        );
    }
    growth(out, record);
    interpreters(out, record);
    noise(out, record);
    let _ = writeln!(out, "## Times\n");
    let _ = writeln!(
        out,
        "time: the net CPU time above, median and range over the rounds; the ratio's range \
         is of the per-round ratios. wall: the whole run at the timed size, wall clock, \
         median. start: CPU time of the run at the empty size, median. compile: interp and \
         jit, the front end and compilation inside each run (wall clock, median); aot, c, \
         C and Rust std, the one build (front end, code generation, C compiler, link). A \
         collection program has a table at each of its two sizes.\n"
    );
    for b in record.benchmarks.iter().flat_map(|b| {
        // The tenth of the size first, as it ran.
        b.tenth.as_deref().into_iter().chain(std::iter::once(b))
    }) {
        let _ = writeln!(out, "### {} ({})\n", b.name, b.size);
        let base = match b.reference {
            Version::PeerC => "C",
            other => other.label(),
        };
        let _ = writeln!(
            out,
            "| version | time | min–max | / {base} | / {base} min–max | wall | start | compile |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
        for r in &b.versions {
            let compile = r.compile_ms.map(ms_text).unwrap_or_default();
            let median = |v: &[f64]| Spread::of(v).map(|s| ms_text(s.median)).unwrap_or_default();
            let (wall, start) = (median(&r.wall_ms), median(&r.empty_ms));
            match (&r.status, r.time) {
                (Status::Ok, Some(t)) => {
                    let (ratio, range) = match r.ratio {
                        Some(x) => (
                            ratio_text(x.median),
                            format!("{}–{}", ratio_text(x.min), ratio_text(x.max)),
                        ),
                        None => (String::new(), String::new()),
                    };
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {ratio} | {range} | {wall} | {start} | {compile} |",
                        r.version.label(),
                        ms_text(t.median),
                        spread_ms(&t)
                    );
                }
                (status, _) => {
                    let _ = writeln!(
                        out,
                        "| {} | {} | | | | | | {compile} |",
                        r.version.label(),
                        status.word()
                    );
                }
            }
        }
        let _ = writeln!(out);
    }
}

/// The growth table: for each benchmark timed at two sizes (the collection programs),
/// each version's median time at the size over its median time at a tenth of it.
fn growth(out: &mut String, record: &Record) {
    let pairs: Vec<(&BenchRecord, &BenchRecord)> = record
        .benchmarks
        .iter()
        .filter_map(|b| b.tenth.as_deref().map(|t| (t, b)))
        .collect();
    if pairs.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Growth: ten times the size\n");
    let _ = writeln!(
        out,
        "Each collection program is timed at two sizes ten times apart, in rounds of \
         their own (the smaller first). Each cell is the version's median time at the \
         larger size over its median time at the smaller one: 10x is linear; the target \
         of issue 38 is at most 12x. The times behind them are under \"Times\".\n"
    );
    let benches: Vec<&BenchRecord> = pairs.iter().map(|(_, b)| *b).collect();
    let cols = columns(&benches);
    let mut header = String::from("| benchmark | sizes |");
    let mut rule = String::from("|---|---:|");
    for v in &cols {
        let _ = write!(header, " {} |", v.label());
        rule.push_str("---:|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for (small, large) in &pairs {
        let mut row = format!("| {} | {} → {} |", large.name, small.size, large.size);
        for v in &cols {
            let cell = match (small.version(*v), large.version(*v)) {
                (Some(a), Some(b)) if a.status.is_ok() && b.status.is_ok() => {
                    match (a.time, b.time) {
                        (Some(ta), Some(tb)) if ta.median > 0.0 => {
                            ratio_text(tb.median / ta.median)
                        }
                        _ => "—".to_string(),
                    }
                }
                (Some(a), _) if !a.status.is_ok() => a.status.word().to_string(),
                (_, b) => missing(b),
            };
            let _ = write!(row, " {cell} |");
        }
        let _ = writeln!(out, "{row}");
    }
    let _ = writeln!(out);
}

/// interp's time over `peer`'s, per round where both ran every round, else the ratio of
/// their medians.
fn over_peer(b: &crate::record::BenchRecord, peer: Version) -> Option<f64> {
    let interp = b.version(Version::Interp).filter(|r| r.status.is_ok())?;
    let other = b.version(peer).filter(|r| r.status.is_ok())?;
    if interp.times_ms.len() == other.times_ms.len() && !interp.times_ms.is_empty() {
        let ratios: Vec<f64> = interp
            .times_ms
            .iter()
            .zip(&other.times_ms)
            .filter(|(_, o)| **o > 0.0)
            .map(|(i, o)| i / o)
            .collect();
        Spread::of(&ratios).map(|s| s.median)
    } else {
        Some(interp.time?.median / other.time?.median)
    }
}

/// The interpreter against the other interpreters (Lua 5.4, LuaJIT's interpreter),
/// with geometric means over the benchmarks both ran.
fn interpreters(out: &mut String, record: &Record) {
    let peers = [Version::Lua54, Version::LuaJitOff];
    let rows: Vec<(&str, [Option<f64>; 2])> = record
        .benchmarks
        .iter()
        .filter(|b| b.version(Version::Lua54).is_some())
        .map(|b| (b.name.as_str(), peers.map(|p| over_peer(b, p))))
        .collect();
    if rows.iter().all(|(_, r)| r.iter().all(Option::is_none)) {
        return;
    }
    let _ = writeln!(
        out,
        "## The interpreter against the interpreters
"
    );
    let _ = writeln!(
        out,
        "interp's time over Lua 5.4's and over LuaJIT's interpreter's (`-joff`), per round,          median; below 1 is faster. The geometric mean is over the benchmarks both ran.
"
    );
    let _ = writeln!(
        out,
        "| benchmark | interp / Lua 5.4 | interp / LuaJIT -joff |"
    );
    let _ = writeln!(out, "|---|---:|---:|");
    let mut logs = [Vec::new(), Vec::new()];
    for (name, ratios) in &rows {
        let cells: Vec<String> = ratios
            .iter()
            .zip(&mut logs)
            .map(|(r, logs)| match r {
                Some(x) => {
                    logs.push(x.ln());
                    format!("{x:.2}")
                }
                None => "—".to_string(),
            })
            .collect();
        let _ = writeln!(out, "| {name} | {} | {} |", cells[0], cells[1]);
    }
    let geomean = |logs: &Vec<f64>| {
        if logs.is_empty() {
            "—".to_string()
        } else {
            format!(
                "{:.2}",
                (logs.iter().sum::<f64>() / logs.len() as f64).exp()
            )
        }
    };
    let _ = writeln!(
        out,
        "| geometric mean | {} | {} |\n",
        geomean(&logs[0]),
        geomean(&logs[1])
    );
}

/// How noisy the run was: C's own spread per benchmark and the widest ratio spread.
fn noise(out: &mut String, record: &Record) {
    let _ = writeln!(out, "## Noise\n");
    let _ = writeln!(
        out,
        "Range = (max − min) / median over the rounds: the worst round against the best. \
         MAD = the median absolute deviation over the median: how far a typical round was \
         from the middle (one outlier moves it little). A ratio moves less than the times \
         when drift is shared by C and the version in the same round.\n"
    );
    let _ = writeln!(
        out,
        "| benchmark | reference | its time range | its time MAD | ratio MAD (median over versions) | widest ratio range |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---|");
    let percent =
        |x: Option<f64>| x.map_or_else(|| "—".to_string(), |x| format!("{:.0}%", x * 100.0));
    let mut all_mads = Vec::new();
    let mut all_ranges = Vec::new();
    for b in record.benchmarks.iter().flat_map(|b| b.with_tenth()) {
        let c = b.version(b.reference).filter(|r| r.status.is_ok());
        let c_range = c.and_then(|r| r.time).map(|t| t.relative_range());
        let c_mad = c.and_then(|r| Spread::relative_mad(&r.times_ms));
        let others: Vec<&VersionRecord> = b
            .versions
            .iter()
            .filter(|r| r.version != b.reference && r.status.is_ok())
            .collect();
        let mads: Vec<f64> = others
            .iter()
            .filter_map(|r| Spread::relative_mad(&r.ratios))
            .collect();
        let ranges: Vec<(f64, Version)> = others
            .iter()
            .filter_map(|r| r.ratio.map(|x| (x.relative_range(), r.version)))
            .collect();
        all_mads.extend(&mads);
        all_ranges.extend(ranges.iter().map(|(x, _)| *x));
        let widest = ranges
            .iter()
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(s, v)| format!("{:.0}% ({})", s * 100.0, v.label()))
            .unwrap_or_else(|| "—".to_string());
        let _ = writeln!(
            out,
            "| {} ({}) | {} | {} | {} | {} | {widest} |",
            b.name,
            b.size,
            b.reference.label(),
            percent(c_range),
            percent(c_mad),
            percent(Spread::of(&mads).map(|s| s.median)),
        );
    }
    match (Spread::of(&all_mads), Spread::of(&all_ranges)) {
        (Some(m), Some(r)) => {
            let _ = writeln!(
                out,
                "\nOver every benchmark and version: ratio MAD median {:.0}% (largest {:.0}%); \
                 ratio range median {:.0}% (widest {:.0}%).\n",
                m.median * 100.0,
                m.max * 100.0,
                r.median * 100.0,
                r.max * 100.0
            );
        }
        _ => {
            let _ = writeln!(out);
        }
    }
}

fn callgrind_tables(out: &mut String, record: &Record, chart_file: Option<&str>) {
    let mut chart_file = chart_file;
    for (reference, benches) in by_reference(record) {
        let label = reference.label();
        let _ = writeln!(out, "## Instructions / {label} instructions\n");
        let _ = writeln!(
            out,
            "Instructions executed (callgrind's `Ir`) at the size shown, less those of the \
             same version at the empty size (start-up, compilation, the runtime's set-up), \
             divided by {label}'s. They do not drift with the machine's load. {label}'s \
             column is its count.\n"
        );
        versions_table(
            out,
            &benches,
            |reference, v, r| match r {
                Some(r) if r.status.is_ok() && v == reference => {
                    r.instructions.map(count_text).unwrap_or_default()
                }
                Some(r) if r.status.is_ok() => r
                    .instructions_ratio
                    .map(ratio_text)
                    .unwrap_or_else(|| r.instructions.map(count_text).unwrap_or_default()),
                _ => missing(r),
            },
            chart_file
                .take()
                .map(|file| ("instructions / reference instructions", file)),
        );
    }
    let _ = writeln!(out, "### Counts\n");
    let _ = writeln!(out, "| benchmark | version | instructions (net) |");
    let _ = writeln!(out, "|---|---|---:|");
    for b in &record.benchmarks {
        for r in b.versions.iter().filter(|r| r.status.is_ok()) {
            if let Some(n) = r.instructions {
                let _ = writeln!(out, "| {} | {} | {n} |", b.name, r.version.label());
            }
        }
    }
    let _ = writeln!(out);
}

fn other_figures(out: &mut String, record: &Record) {
    if let Some(nc) = &record.native_calls {
        let _ = writeln!(out, "## Native calls\n");
        let _ = writeln!(
            out,
            "`noop` (a C rider's native that adds one to a `u64`) called {} times in a loop; \
             ns per call = (CPU time at that size − CPU time at size 0) / calls, per round, \
             median: net of start-up and compilation. The C loop calls the same function in the same \
             shared library through the PLT; LuaJIT through its FFI.\n",
            nc.calls
        );
        let _ = writeln!(out, "| version | ns per call | / C loop |");
        let _ = writeln!(out, "|---|---:|---:|");
        for (v, ns, ratio) in &nc.versions {
            let _ = writeln!(
                out,
                "| {} | {ns:.2} | {} |",
                v.label(),
                ratio.map(ratio_text).unwrap_or_default()
            );
        }
        let _ = writeln!(out);
    }
    if let Some(g) = &record.compile_growth {
        let _ = writeln!(out, "## Compile time: a program and one ten times larger\n");
        let _ = writeln!(
            out,
            "The generated program ({} lines of datalove) and one with ten times the functions \
             ({} lines). check: the front end to verified IR; interp, jit: front end + \
             lowering or code generation (from `datalove run`'s phases); aot, c: front end + \
             building the executable (C compiler and link included); C -O2: gcc on the same \
             program in C. Median over the rounds.\n",
            g.base_lines, g.large_lines
        );
        let _ = writeln!(out, "| stage | base | 10x | growth |");
        let _ = writeln!(out, "|---|---:|---:|---:|");
        for s in &g.stages {
            match (&s.base_ms, &s.large_ms, &s.problem) {
                (Some(b), Some(l), None) => {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {} |",
                        s.stage,
                        ms_text(b.median),
                        ms_text(l.median),
                        s.growth.map(ratio_text).unwrap_or_default()
                    );
                }
                (_, _, problem) => {
                    let _ = writeln!(
                        out,
                        "| {} | {} | | |",
                        s.stage,
                        problem.as_deref().unwrap_or("no figure")
                    );
                }
            }
        }
        let _ = writeln!(out);
    }
    if let Some(st) = &record.startup {
        let _ = writeln!(out, "## Start to first output\n");
        let _ = writeln!(
            out,
            "From spawning the process to the first byte on its stdout, for the generated \
             program ({} lines; it prints `start` first). interp and jit compile it first; \
             aot, c and C were built beforehand. Median over the rounds.\n",
            st.lines
        );
        let _ = writeln!(out, "| version | first output | min–max |");
        let _ = writeln!(out, "|---|---:|---:|");
        for (v, status, spread) in &st.versions {
            match spread {
                Some(s) => {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} |",
                        v.label(),
                        ms_text(s.median),
                        spread_ms(s)
                    );
                }
                None => {
                    let _ = writeln!(out, "| {} | {} | |", v.label(), status.word());
                }
            }
        }
        let _ = writeln!(out);
    }
}

/// Every version that did not run, and why; one line per version and reason.
fn problems(out: &mut String, record: &Record) {
    // (version, word, reason) -> the benchmarks it applies to, in order.
    type Reason<'a> = (Version, &'a str, String);
    let mut groups: Vec<(Reason, Vec<String>)> = Vec::new();
    let mut add = |v: Version, status: &Status, place: &str| {
        if let Status::Unavailable(why) | Status::WrongOutput(why) | Status::Failed(why) = status {
            let key = (
                v,
                status.word(),
                why.lines().next().unwrap_or("").to_string(),
            );
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, places)) => places.push(place.to_string()),
                None => groups.push((key, vec![place.to_string()])),
            }
        }
    };
    for whole in &record.benchmarks {
        for b in whole.with_tenth() {
            let place = if b.size == whole.size {
                b.name.clone()
            } else {
                format!("{} at {}", b.name, b.size)
            };
            for r in &b.versions {
                add(r.version, &r.status, &place);
            }
        }
    }
    if let Some(st) = &record.startup {
        for (v, status, _) in &st.versions {
            if !matches!(status, Status::Unavailable(_)) {
                add(*v, status, "start to first output");
            }
        }
    }
    if groups.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Not measured\n");
    let _ = writeln!(
        out,
        "n/a: a tool is missing here (never a failure); WRONG: the output differed \
         from the expected one; FAILED: it did not build or did not exit 0.\n"
    );
    for ((v, word, why), places) in groups {
        let _ = writeln!(
            out,
            "- **{}** {word} ({}): {why}",
            v.label(),
            places.join(", ")
        );
    }
    let _ = writeln!(out);
}

fn what_ran(out: &mut String, record: &Record) {
    let _ = writeln!(out, "## What ran\n");
    let benches: Vec<&BenchRecord> = record.benchmarks.iter().collect();
    for v in columns(&benches) {
        let _ = writeln!(out, "- **{}**: {}", v.label(), v.description());
    }
    let _ = writeln!(out);
    for (tool, version) in &record.tools {
        let _ = writeln!(out, "- {tool}: {version}");
    }
    let _ = writeln!(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_well() {
        assert_eq!(ratio_text(1.234), "1.23x");
        assert_eq!(ratio_text(64.4), "64.4x");
        assert_eq!(ratio_text(123.4), "123x");
        assert_eq!(ms_text(0.5), "0.50 ms");
        assert_eq!(ms_text(45.67), "45.7 ms");
        assert_eq!(ms_text(2345.0), "2.35 s");
        assert_eq!(count_text(1_234_567), "1.2M");
    }
}
