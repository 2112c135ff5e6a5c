//! Standalone SVG bar charts for the reports: one group of horizontal bars per case, one bar per
//! implementation in a fixed colour, so a reader can see a table's shape at a glance.

use std::fmt::Write;

/// A chart file to write beside a report: `charts/<stem>.svg`.
pub struct Chart {
    pub stem: String,
    pub title: String,
    pub svg: String,
}

/// Colours by implementation position (baseline first), readable on white and in greyscale.
const PALETTE: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f",
];

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

/// Horizontal grouped bars. `series` names the bars of every group (implementations);
/// `groups` holds, per case, one optional value per series (missing values draw no bar).
/// `format` prints a value next to its bar.
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
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">
<rect width="100%" height="100%" fill="white"/>
<text x="8" y="18" font-size="14" font-weight="bold">{}</text>
<text x="8" y="34" fill="#555">{} — longer is more; bars share one linear scale</text>
"##,
        escape(title),
        escape(unit)
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
        for (i, value) in values.iter().enumerate() {
            let Some(value) = value else { continue };
            let y = y0 + i as f64 * BAR;
            let width = if max > 0.0 { value / max * plot } else { 0.0 };
            let _ = writeln!(
                svg,
                r#"<rect x="{LABEL_WIDTH}" y="{y}" width="{width:.1}" height="{}" fill="{}"><title>{}: {}</title></rect>"#,
                BAR - 1.0,
                PALETTE[i % PALETTE.len()],
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
    let legend_y = TOP + groups.len() as f64 * group_height + 4.0;
    for (i, name) in series.iter().enumerate() {
        let x = 8.0 + (i % 4) as f64 * 210.0;
        let y = legend_y + (i / 4) as f64 * 18.0;
        let _ = writeln!(
            svg,
            r#"<rect x="{x}" y="{y}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            PALETTE[i % PALETTE.len()],
            x + 16.0,
            y + 10.0,
            escape(name)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_value_and_missing_values_draw_nothing() {
        let svg = bar_chart(
            "t <1>",
            "ns/op",
            &["a", "b"],
            &[
                ("row".into(), vec![Some(10.0), Some(5.0)]),
                ("gap".into(), vec![None, Some(2.5)]),
            ],
            |v| format!("{v}"),
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("t &lt;1&gt;"));
        let plot = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
        assert!(svg.contains(&format!(r#"width="{:.1}""#, plot)));
        assert!(svg.contains(&format!(r#"width="{:.1}""#, plot / 2.0)));
        assert_eq!(svg.matches("<title>").count(), 3);
    }
}
