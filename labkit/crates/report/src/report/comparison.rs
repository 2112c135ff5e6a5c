//! The comparison table every report is made of.

use super::{Row, absent_cell, cell, format_metric, verdict_word};
use crate::compare::{Comparison, Travel, compare_in, travel_of};
use crate::record::{Baselines, BenchId, FLOOR, Metric, Record, ResultSet, Role, is_floor};
use crate::table::{Align, Table, format_change};

/// A comparison table: one row per (experiment, parameter), one column per implementation, in
/// groups by the baseline each is compared with (the lab's designs, then its JVM designs): the
/// baseline first, then its A/A twin when the run measured one, each candidate cell with its ratio
/// to its baseline, the change in percent, the verdict and, for per-pass comparisons, how many
/// passes agree. A harness floor, when the group has one, is a column of its own, never compared;
/// on a cost that adds up each other cell of the group also shows its value net of the floor's.
pub fn comparison_table(
    set: &ResultSet,
    metric: Metric,
    rows: &[Row],
    implementations: &[&str],
    baselines: &Baselines,
) -> Table {
    let id_of = |row: &Row, name: &str, role: &Role| {
        BenchId::new(&row.experiment, name, &row.parameter).with_role(role.clone())
    };
    let all = baselines.all();
    let mut columns: Vec<(&str, Role)> = Vec::new();
    for baseline in all.iter().filter(|b| implementations.contains(b)) {
        columns.push((baseline, Role::Design));
        let measured_twin = rows.iter().any(|row| {
            set.find(&id_of(row, baseline, &Role::Twin), metric)
                .is_some()
        });
        if measured_twin {
            columns.push((baseline, Role::Twin));
        }
        columns.extend(
            implementations
                .iter()
                .filter(|i| baselines.of(i) == *baseline && *i != baseline)
                .map(|name| (*name, Role::Design)),
        );
    }
    let mut per_pass = vec![false; columns.len()];
    let mut body = Vec::new();
    for row in rows {
        let find = |name: &str, role: &Role| set.find(&id_of(row, name, role), metric);
        // A Rust design's own cost: its value less the harness floor's on this row (JMH's own
        // harness times the JVM designs). A median time below the floor's says only that the two
        // are within the run's noise of each other.
        let floor_of = |name: &str| {
            (baselines.of(name) == all[0])
                .then(|| find(FLOOR, &Role::Design))
                .flatten()
                .filter(|_| metric.facts().net_of_floor)
        };
        let net = |name: &str, r: &Record| {
            floor_of(name).map_or(String::new(), |f| match r.value - f.value {
                net if net < 0.0 => "<br>net: below the floor".to_owned(),
                net => format!("<br>net {}", format_metric(metric, net)),
            })
        };
        let mut cells = vec![row.label.clone()];
        for (column, (name, role)) in columns.iter().enumerate() {
            let twin = *role == Role::Twin;
            let base = find(baselines.of(name), &Role::Design);
            cells.push(match (find(name, role), base) {
                (None, _) => absent_cell(set, &id_of(row, name, role), metric),
                (Some(r), _) if is_floor(name) => cell(r),
                (Some(r), _) if baselines.is_baseline(name) && !twin => {
                    format!("{}<br>1.00×{}", cell(r), net(name, r))
                }
                (Some(r), None) => format!("{}{}", cell(r), net(name, r)),
                (Some(r), Some(b)) => {
                    let net = if twin { String::new() } else { net(name, r) };
                    let (text, printed_per_pass) = compared_cell(set, metric, b, r, &net);
                    per_pass[column] |= printed_per_pass;
                    text
                }
            });
        }
        body.push(cells);
    }
    let mut table = Table::new().column("Case", Align::Left);
    for ((name, role), per_pass) in columns.iter().zip(per_pass) {
        table = table.column(&header(name, role, baselines, per_pass), Align::Right);
    }
    for cells in body {
        table.row(cells);
    }
    table
}

/// A column's header: the design and its part (baseline, A/A twin, floor), and which ratio its
/// cells print where they are compared pass by pass.
fn header(name: &str, role: &Role, baselines: &Baselines, per_pass: bool) -> String {
    let part = if *role == Role::Twin {
        format!("{name} again (A/A)")
    } else if name == baselines.all()[0] {
        format!("{name} (baseline)")
    } else if baselines.is_baseline(name) {
        format!("{name} (JVM baseline)")
    } else if is_floor(name) {
        format!("{name} (no work; not compared)")
    } else {
        name.to_string()
    };
    if per_pass {
        format!("{part}<br>× median per pass")
    } else {
        part
    }
}

/// A cell compared with its baseline: its value, the ratio with its interval across passes (where
/// it has one: a pass whose baseline was 0 leaves it unbounded, and then none is shown), the
/// change, the verdict with the passes that agree, and `net` (its value net of the floor); and
/// whether the ratio it printed is a median per pass (its column's header says so).
fn compared_cell(
    set: &ResultSet,
    metric: Metric,
    base: &Record,
    r: &Record,
    net: &str,
) -> (String, bool) {
    let c = compare_in(set, base, r);
    let word = c.verdict_text(verdict_word(metric, c.verdict));
    let agreement = c.agreement.map_or(String::new(), |(agreeing, of)| {
        format!(" ({agreeing}/{of})")
    });
    let interval = c
        .interval
        .filter(|i| i.lower.is_finite() && i.upper.is_finite())
        .map_or(String::new(), |i| {
            format!(" [{:.2}–{:.2}]", i.lower, i.upper)
        });
    let beside = super::values_ratio_note(base, r, &c);
    // Over a baseline whose median is 0 most passes divide by 0: their median ratio says nothing.
    let per_pass = c.agreement.is_some();
    let ratio = c.ratio.is_finite() && !(per_pass && base.value == 0.0);
    let text = if ratio {
        format!(
            "{}<br>{:.2}×{interval} {} {word}{agreement}{beside}{}{net}",
            cell(r),
            c.ratio,
            format_change(c.change_percent),
            elsewhere(set, metric, base, r, &c)
        )
    } else {
        format!("{}<br>{word} (baseline 0)", cell(r))
    };
    (text, ratio && per_pass)
}

/// Where the run this one replaced decided the cell otherwise: its ratio and verdict there, so
/// a reader sees which verdicts did not travel (`<br>last run: 1.04× slower`).
fn elsewhere(
    set: &ResultSet,
    metric: Metric,
    base: &Record,
    r: &Record,
    now: &Comparison,
) -> String {
    let previous = set.previous.as_deref();
    let before = previous.and_then(|p| {
        Some(compare_in(
            p,
            p.find(&base.id, metric)?,
            p.find(&r.id, metric)?,
        ))
    });
    match (travel_of(now, before.as_ref()), before) {
        (Some(Travel::Moved), Some(b)) => format!(
            "<br>last run: {:.2}× {}",
            b.ratio,
            verdict_word(metric, b.verdict)
        ),
        _ => String::new(),
    }
}

/// The rows' values per design, without ratios or verdicts: counts that should all be zero, or
/// differences already derived, where a comparison to the baseline says nothing. A design with none of the rows' values (one the
/// experiments do not measure) has no column.
pub fn values_table(set: &ResultSet, metric: Metric, rows: &[Row], designs: &[&str]) -> Table {
    let value = |row: &Row, design: &str| {
        set.find(
            &BenchId::new(&row.experiment, design, &row.parameter),
            metric,
        )
    };
    let designs: Vec<&str> = designs
        .iter()
        .copied()
        .filter(|d| rows.iter().any(|row| value(row, d).is_some()))
        .collect();
    let mut table = designs
        .iter()
        .fold(Table::new().column("Case", Align::Left), |t, d| {
            t.column(&format!("`{d}`"), Align::Right)
        });
    for row in rows {
        let mut cells = vec![row.label.clone()];
        cells.extend(
            designs.iter().map(|d| {
                value(row, d).map_or_else(|| "—".into(), |r| format_metric(metric, r.value))
            }),
        );
        table.row(cells);
    }
    table
}
