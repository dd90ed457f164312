//! The report's chart: for each benchmark, one bar per version, its time (or
//! instructions) over its reference's (C's, or Rust std's for the collection programs), on
//! a log scale, drawn with `plotters` as SVG.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor;

use crate::record::{Mode, Record};
use crate::versions::Version;

/// A color per version, stable across charts.
fn color(v: Version) -> RGBColor {
    match v {
        Version::PeerC => RGBColor(60, 60, 60),
        Version::RustStd => RGBColor(150, 150, 150),
        Version::Interp => RGBColor(214, 39, 40),
        Version::Jit => RGBColor(255, 127, 14),
        Version::Aot => RGBColor(44, 160, 44),
        Version::C => RGBColor(31, 119, 180),
        Version::LuaJit => RGBColor(148, 103, 189),
        Version::LuaJitOff => RGBColor(197, 176, 213),
        Version::Lua54 => RGBColor(140, 86, 75),
        Version::Python => RGBColor(23, 190, 207),
    }
}

/// The ratio a version shows on the chart.
fn ratio(record: &Record, bench: usize, v: Version) -> Option<f64> {
    let b = &record.benchmarks[bench];
    let r = b.version(v)?;
    if !r.status.is_ok() {
        return None;
    }
    match record.mode {
        Mode::Time if v == b.reference => r.time.map(|_| 1.0),
        Mode::Time => r.ratio.map(|x| x.median),
        Mode::Callgrind if v == b.reference => r.instructions.map(|_| 1.0),
        Mode::Callgrind => r.instructions_ratio,
    }
    .filter(|x| x.is_finite() && *x > 0.0)
}

/// Draws the chart into `path`; `Ok(false)` when there is nothing to draw.
pub fn draw(record: &Record, path: &Path) -> Result<bool, String> {
    let benches = record.benchmarks.len();
    let versions: Vec<Version> = Version::ALL
        .into_iter()
        .filter(|&v| (0..benches).any(|b| ratio(record, b, v).is_some()))
        .collect();
    let values: Vec<f64> = (0..benches)
        .flat_map(|b| versions.iter().filter_map(move |&v| ratio(record, b, v)))
        .collect();
    if values.is_empty() {
        return Ok(false);
    }
    let low = values.iter().copied().fold(1.0f64, f64::min) * 0.7;
    // Headroom above the tallest bar for the legend.
    let high = values.iter().copied().fold(1.0f64, f64::max) * 4.0;
    let caption = match record.mode {
        Mode::Time => format!(
            "time / C -O2 time (Rust std's for the collection programs; median of {} rounds, log scale) — {}{}",
            record.rounds,
            record.commit,
            if record.emulated { ", EMULATED" } else { "" }
        ),
        Mode::Callgrind => format!(
            "instructions / C -O2 instructions (Rust std's for the collection programs; callgrind, log scale) — {}",
            record.commit
        ),
    };
    let root = SVGBackend::new(path, (1200, 560)).into_drawing_area();
    let e = |e: DrawingAreaErrorKind<_>| format!("drawing {}: {e}", path.display());
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..benches as f64, (low..high).log_scale())
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("ratio to C -O2 (or Rust std)")
        .y_label_formatter(&|y| {
            if *y >= 10.0 {
                format!("{y:.0}x")
            } else {
                format!("{y:.1}x")
            }
        })
        .draw()
        .map_err(e)?;
    let width = 0.8 / versions.len() as f64;
    for (k, &v) in versions.iter().enumerate() {
        let bars: Vec<Rectangle<(f64, f64)>> = (0..benches)
            .filter_map(|b| {
                let y = ratio(record, b, v)?;
                let x0 = b as f64 + 0.1 + k as f64 * width;
                Some(Rectangle::new(
                    [(x0, low), (x0 + width * 0.9, y)],
                    color(v).filled(),
                ))
            })
            .collect();
        chart
            .draw_series(bars)
            .map_err(e)?
            .label(v.label())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color(v).filled()));
    }
    // The line at 1x: as fast as the reference.
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, 1.0), (benches as f64, 1.0)],
            BLACK.stroke_width(1),
        )))
        .map_err(e)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    // Benchmark names under their groups, placed in the root's pixels.
    let style = TextStyle::from(("sans-serif", 15).into_font()).pos(text_anchor::Pos::new(
        text_anchor::HPos::Center,
        text_anchor::VPos::Top,
    ));
    for (b, bench) in record.benchmarks.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(b as f64 + 0.5, low));
        root.draw(&Text::new(bench.name.clone(), (x, y + 8), style.clone()))
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(true)
}
