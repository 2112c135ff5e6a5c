//! Tests of [`super`].

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

#[test]
fn more_series_than_the_palette_get_distinct_colours_and_each_its_legend_key() {
    let names: Vec<String> = (0..20).map(|i| format!("design-{i}")).collect();
    let series: Vec<&str> = names.iter().map(String::as_str).collect();
    let row = ("row".to_owned(), (1..=20).map(|v| Some(v as f64)).collect());
    let svg = bar_chart("t", "ns/op", &series, &[row], |v| format!("{v}"));
    let fills: Vec<&str> = svg
        .lines()
        .filter(|l| l.starts_with("<rect x=\"190\""))
        .filter_map(|l| l.split("fill=\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(fills.len(), 20, "{svg}");
    let distinct: std::collections::HashSet<&&str> = fills.iter().collect();
    assert_eq!(distinct.len(), 20, "two bars share a colour: {fills:?}");
    for (i, name) in series.iter().enumerate() {
        let key = format!(r#"fill="{}"/><text"#, colour(i));
        let legend = svg.lines().find(|l| l.contains(&key) && l.contains(name));
        assert!(
            legend.is_some(),
            "no legend key for {name} in its bar colour"
        );
    }
}

fn log_log_chart(
    title: &str,
    x_axis: &str,
    y_axis: &str,
    series: &[&str],
    lines: &[Vec<(f64, f64, String)>],
) -> String {
    line_chart(
        title,
        (x_axis, Scale::Log),
        (y_axis, Scale::Log),
        series,
        lines,
    )
}

#[test]
fn empty_charts_render_without_a_range() {
    let svg = log_log_chart("t", "x", "y", &["a", "b"], &[vec![], vec![]]);
    assert!(svg.ends_with("</svg>\n") && !svg.contains("<circle"));
    let svg = bar_chart("t", "ns/op", &["a"], &[], |v| format!("{v}"));
    assert!(svg.ends_with("</svg>\n"));
}

#[test]
fn coinciding_series_are_drawn_dashed_and_named_in_the_legend() {
    let line = vec![(1.0, 2.0, "p".to_owned()), (10.0, 3.0, "q".to_owned())];
    let svg = log_log_chart("t", "x", "y", &["a", "b"], &[line.clone(), line]);
    assert_eq!(svg.matches("stroke-dasharray").count(), 1, "{svg}");
    assert!(svg.contains("b (dashed: same as a)"), "{svg}");
}

#[test]
fn bar_groups_mark_their_baseline() {
    let svg = bar_chart(
        "t",
        "ns/op — shorter is better",
        &["base", "x"],
        &[("row".into(), vec![Some(4.0), Some(8.0)])],
        |v| format!("{v}"),
    );
    assert!(svg.contains("stroke-dasharray"), "{svg}");
    assert!(svg.contains("base (baseline)") && svg.contains("shorter is better"));
}

#[test]
fn log_log_points_sit_inside_the_plot_in_x_order() {
    let svg = log_log_chart(
        "t",
        "entries per ledger",
        "bytes per entry",
        &["a", "b"],
        &[
            vec![(1000.0, 30.0, "1k".into()), (1.0, 250.0, "one".into())],
            vec![(10.0, 8.0, "ten".into()), (0.0, 5.0, "dropped".into())],
        ],
    );
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    assert_eq!(
        svg.matches("<circle").count(),
        3,
        "non-positive points are not drawn"
    );
    let circles: Vec<(f64, f64)> = svg
        .lines()
        .filter(|l| l.starts_with("<circle"))
        .map(|l| {
            let attr = |name: &str| -> f64 {
                let start = l.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
                l[start..].split('"').next().unwrap().parse().unwrap()
            };
            (attr("cx"), attr("cy"))
        })
        .collect();
    for (x, y) in &circles {
        assert!(
            (70.0..=810.0).contains(x) && (50.0..=430.0).contains(y),
            "{x},{y}"
        );
    }
    // Series a is drawn from x = 1 to x = 1000, and the larger y sits higher.
    assert!(circles[0].0 < circles[1].0 && circles[0].1 < circles[1].1);
}
