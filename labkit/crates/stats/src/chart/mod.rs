//! Standalone SVG charts for the reports, so a reader can see a table's shape at a glance: grouped
//! horizontal bars (one group per case, one bar per implementation in a fixed colour) and line
//! charts (one line per implementation against a size parameter or time, each axis logarithmic or
//! linear: [`Scale`]).

mod axis;
pub mod links;

use std::fmt::Write;

pub use axis::Scale;
use axis::tick_label;

/// A chart file to write beside a report: `charts/<stem>.svg`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chart {
    pub stem: String,
    pub title: String,
    pub svg: String,
}

/// Colours by implementation position (baseline first), readable on white and in greyscale.
const PALETTE: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f",
];

/// The colour of series `i`: the palette's, then generated ones (hues a golden angle apart, at
/// a darker lightness for every round of the hue circle), so a lab with more designs than the
/// palette has colours never draws two series alike.
fn colour(i: usize) -> String {
    if let Some(c) = PALETTE.get(i) {
        return (*c).to_owned();
    }
    let k = i - PALETTE.len();
    let hue = (k as f64 * 137.507_764) % 360.0;
    let lightness = 38.0 + 14.0 * ((k / 3) % 3) as f64;
    format!("hsl({hue:.1},55%,{lightness:.0}%)")
}

const WIDTH: f64 = 860.0;
const LABEL_WIDTH: f64 = 190.0;
const VALUE_WIDTH: f64 = 90.0;
const BAR: f64 = 11.0;
const GROUP_GAP: f64 = 12.0;
const TOP: f64 = 44.0;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Horizontal grouped bars. `series` names the bars of every group (implementations, the baseline
/// first); `groups` holds, per case, one optional value per series (missing values draw no bar).
/// A dashed line across each group marks its baseline value. `format` prints a value next to its
/// bar; `unit` heads the subtitle (say there which direction is better).
pub fn bar_chart(
    title: &str,
    unit: &str,
    series: &[&str],
    groups: &[(String, Vec<Option<f64>>)],
    format: impl Fn(f64) -> String,
) -> String {
    let max = groups
        .iter()
        .flat_map(|(_, values)| values.iter().flatten())
        .fold(0.0_f64, |m, v| m.max(*v));
    let plot = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
    let group_height = series.len() as f64 * BAR + GROUP_GAP;
    let legend_height = 18.0 * series.len().div_ceil(4) as f64;
    let height = TOP + groups.len() as f64 * group_height + legend_height + 10.0;
    let mut svg = document(
        height,
        title,
        &format!("{unit}; bars share one linear scale; dashed line: the baseline"),
    );
    for (g, (label, values)) in groups.iter().enumerate() {
        let y0 = TOP + g as f64 * group_height;
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            LABEL_WIDTH - 6.0,
            y0 + series.len() as f64 * BAR / 2.0 + 4.0,
            escape(label)
        );
        if let Some(Some(base)) = values.first()
            && max > 0.0
        {
            let x = LABEL_WIDTH + base / max * plot;
            let _ = writeln!(
                svg,
                r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#222" stroke-dasharray="3,2"/>"##,
                y0 - 1.0,
                y0 + series.len() as f64 * BAR
            );
        }
        for (i, value) in values.iter().enumerate() {
            let Some(value) = value else { continue };
            let y = y0 + i as f64 * BAR;
            let width = if max > 0.0 { value / max * plot } else { 0.0 };
            let _ = writeln!(
                svg,
                r#"<rect x="{LABEL_WIDTH}" y="{y}" width="{width:.1}" height="{}" fill="{}"><title>{}: {}</title></rect>"#,
                BAR - 1.0,
                colour(i),
                escape(series[i]),
                escape(&format(*value))
            );
            let _ = writeln!(
                svg,
                r##"<text x="{:.1}" y="{}" fill="#333" font-size="9">{}</text>"##,
                LABEL_WIDTH + width + 3.0,
                y + BAR - 2.5,
                escape(&format(*value))
            );
        }
    }
    let names: Vec<String> = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i == 0 {
                format!("{s} (baseline)")
            } else {
                s.to_string()
            }
        })
        .collect();
    legend(
        &mut svg,
        &names,
        TOP + groups.len() as f64 * group_height + 4.0,
    );
    svg
}

/// The start of a chart document: white background, title and a subtitle saying how to read it.
fn document(height: f64, title: &str, subtitle: &str) -> String {
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">
<rect width="100%" height="100%" fill="white"/>
<text x="8" y="18" font-size="14" font-weight="bold">{}</text>
<text x="8" y="34" fill="#555">{}</text>
"##,
        escape(title),
        escape(subtitle)
    )
}

/// Rows of four colour keys from `top` down, and the end of the document.
fn legend(svg: &mut String, series: &[String], top: f64) {
    for (i, name) in series.iter().enumerate() {
        let x = 8.0 + (i % 4) as f64 * 210.0;
        let y = top + (i / 4) as f64 * 18.0;
        let _ = writeln!(
            svg,
            r#"<rect x="{x}" y="{y}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            colour(i),
            x + 16.0,
            y + 10.0,
            escape(name)
        );
    }
    svg.push_str("</svg>\n");
}

/// One line per series over axes of the given scales (a log axis draws positive values only).
/// `lines` holds, per series, its points as (x, y, label); each point is a marker whose tooltip
/// shows its label.
pub fn line_chart(
    title: &str,
    (x_axis, x_scale): (&str, Scale),
    (y_axis, y_scale): (&str, Scale),
    series: &[&str],
    lines: &[Vec<(f64, f64, String)>],
) -> String {
    line_chart_with(
        (x_axis, tick_label, x_scale),
        (y_axis, tick_label, y_scale),
        title,
        series,
        lines,
    )
}

/// Latency percentile curves: x is the percentile on a log scale of 1 / (1 − q) (so 50 %, 90 %,
/// 99 %, 99.9 % are evenly spaced, as HdrHistogram plots them), y the latency in ns, logarithmic.
/// `lines` holds, per series, its (quantile, latency ns) points, the last one its maximum.
pub fn percentile_chart(title: &str, series: &[&str], lines: &[Vec<(f64, f64)>]) -> String {
    let points: Vec<Vec<(f64, f64, String)>> = lines
        .iter()
        .map(|line| {
            line.iter()
                .enumerate()
                .filter(|(_, (q, _))| *q < 1.0)
                .map(|(i, &(q, ns))| {
                    let name = if i + 1 == line.len() {
                        "max".to_owned()
                    } else {
                        format!("p{}", percent(q))
                    };
                    (1.0 / (1.0 - q), ns, format!("{name} {}", duration(ns)))
                })
                .collect()
        })
        .collect();
    line_chart_with(
        (
            "percentile",
            |x| format!("{}%", percent(1.0 - 1.0 / x)),
            Scale::Log,
        ),
        ("latency", duration, Scale::Log),
        title,
        series,
        &points,
    )
}

/// A quantile as a percentage without trailing zeros: 0.999 → `99.9`.
fn percent(q: f64) -> String {
    let text = format!("{:.4}", q * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Nanoseconds as a short duration label: `500 µs`, `2 ms`, `1.562 s`.
fn duration(ns: f64) -> String {
    let (scaled, unit) = match ns {
        v if v >= 1e9 => (v / 1e9, "s"),
        v if v >= 1e6 => (v / 1e6, "ms"),
        v if v >= 1e3 => (v / 1e3, "µs"),
        v => (v, "ns"),
    };
    let text = format!("{scaled:.3}");
    format!(
        "{} {unit}",
        text.trim_end_matches('0').trim_end_matches('.')
    )
}

/// [`line_chart`] with each axis's title, tick-label format and scale.
fn line_chart_with(
    (x_axis, x_tick, x_scale): (&str, fn(f64) -> String, Scale),
    (y_axis, y_tick, y_scale): (&str, fn(f64) -> String, Scale),
    title: &str,
    series: &[&str],
    lines: &[Vec<(f64, f64, String)>],
) -> String {
    const PLOT_LEFT: f64 = 70.0;
    const PLOT_TOP: f64 = 50.0;
    const PLOT_WIDTH: f64 = 740.0;
    const PLOT_HEIGHT: f64 = 380.0;
    let drawn = |(x, y, _): &&(f64, f64, String)| x_scale.draws(*x) && y_scale.draws(*y);
    let points = || lines.iter().flatten().filter(drawn);
    let (x_low, x_high) = x_scale.range(&points().map(|p| p.0).collect::<Vec<_>>());
    let (y_low, y_high) = y_scale.range(&points().map(|p| p.1).collect::<Vec<_>>());
    let x_at = |x: f64| PLOT_LEFT + (x_scale.at(x) - x_low) / (x_high - x_low) * PLOT_WIDTH;
    let y_at =
        |y: f64| PLOT_TOP + PLOT_HEIGHT - (y_scale.at(y) - y_low) / (y_high - y_low) * PLOT_HEIGHT;
    let legend_top = PLOT_TOP + PLOT_HEIGHT + 42.0;
    let height = legend_top + 18.0 * series.len().div_ceil(4) as f64 + 8.0;
    let axes = if x_scale == y_scale {
        format!("both axes {}", x_scale.word())
    } else {
        format!("x {}, y {}", x_scale.word(), y_scale.word())
    };
    let mut svg = document(
        height,
        title,
        &format!("{y_axis} against {x_axis}, {axes}; lower is less"),
    );
    let _ = writeln!(
        svg,
        r##"<rect x="{PLOT_LEFT}" y="{PLOT_TOP}" width="{PLOT_WIDTH}" height="{PLOT_HEIGHT}" fill="none" stroke="#999"/>"##
    );
    for tick in x_scale.ticks(x_low, x_high) {
        let x = x_at(tick);
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{PLOT_TOP}" x2="{x:.1}" y2="{}" stroke="#eee"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
            PLOT_TOP + PLOT_HEIGHT,
            PLOT_TOP + PLOT_HEIGHT + 14.0,
            x_tick(tick)
        );
    }
    for tick in y_scale.ticks(y_low, y_high) {
        let y = y_at(tick);
        let _ = writeln!(
            svg,
            r##"<line x1="{PLOT_LEFT}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            PLOT_LEFT + PLOT_WIDTH,
            PLOT_LEFT - 6.0,
            y + 4.0,
            y_tick(tick)
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        PLOT_LEFT + PLOT_WIDTH / 2.0,
        PLOT_TOP + PLOT_HEIGHT + 30.0,
        escape(x_axis)
    );
    // A series identical to an earlier one would hide under it: draw it dashed, and say so.
    let same_as = coinciding(lines);
    for (i, line) in lines.iter().enumerate() {
        let mut sorted: Vec<&(f64, f64, String)> = line.iter().filter(drawn).collect();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        let at: Vec<(f64, f64, &str)> = sorted
            .into_iter()
            .map(|(x, y, label)| (x_at(*x), y_at(*y), label.as_str()))
            .collect();
        polyline(&mut svg, &at, i, same_as[i].is_some(), series[i]);
    }
    let names: Vec<String> = series
        .iter()
        .zip(&same_as)
        .map(|(s, same)| match same {
            Some(j) => format!("{s} (dashed: same as {})", series[*j]),
            None => s.to_string(),
        })
        .collect();
    legend(&mut svg, &names, legend_top);
    svg
}

/// One series at its points (in pixels, left to right), each point titled with its label; dashed
/// when it coincides with an earlier one.
fn polyline(svg: &mut String, at: &[(f64, f64, &str)], i: usize, dashed: bool, series: &str) {
    let colour = colour(i);
    let dash = if dashed {
        r#" stroke-dasharray="6,4""#
    } else {
        ""
    };
    let path: Vec<String> = at
        .iter()
        .map(|(x, y, _)| format!("{x:.1},{y:.1}"))
        .collect();
    let _ = writeln!(
        svg,
        r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="1.5"{dash}/>"#,
        path.join(" ")
    );
    for (x, y, label) in at {
        let _ = writeln!(
            svg,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{colour}"><title>{}: {}</title></circle>"#,
            escape(series),
            escape(label)
        );
    }
}

/// For each line, the first earlier line with the same points, if any.
fn coinciding(lines: &[Vec<(f64, f64, String)>]) -> Vec<Option<usize>> {
    (0..lines.len())
        .map(|i| {
            (0..i).find(|&j| !lines[i].is_empty() && points_of(&lines[j]) == points_of(&lines[i]))
        })
        .collect()
}

/// A series' points without their labels, for spotting coinciding lines.
fn points_of(line: &[(f64, f64, String)]) -> Vec<(u64, u64)> {
    line.iter()
        .map(|(x, y, _)| (x.to_bits(), y.to_bits()))
        .collect()
}

#[cfg(test)]
mod tests;
