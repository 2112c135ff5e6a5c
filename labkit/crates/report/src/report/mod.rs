//! Report building blocks shared by every lab: the environment header, comparison tables in the
//! seeds' shape (rows = cases, columns = implementations, baseline first at 1.00×), charts, and
//! the tables a lab's templates ([`crate::template`]) print in their slots.

mod case_time;
mod comparison;
mod cost_split;
mod lines;
mod not_faster;

pub use case_time::{case_seconds, case_time_section};
pub use comparison::{comparison_table, values_table};
pub use cost_split::cost_split_table;
pub use lines::{Lines, Point, lines_chart, lines_table};
pub use not_faster::not_faster;

/// A lab's reference files under its `report/` directory, each read into the binary and parsed
/// where it is used: `answers: Answers = "answers.json"` gives `pub fn answers() -> Answers`. A
/// file that does not parse is the lab's bug, which its conformance tests catch.
#[macro_export]
macro_rules! report_files {
    ($($name:ident: $ty:ty = $file:literal),+ $(,)?) => {$(
        pub fn $name() -> $ty {
            <$ty>::parse(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/report/", $file)))
                .expect(concat!("report/", $file, " parses"))
        }
    )+};
}

use crate::chart::{Chart, bar_chart, percentile_chart};
use crate::compare::{Comparison, Verdict};
use crate::lab::{Experiment, Parameter};
use crate::record::{BenchId, Metric, PERCENTILES, Quantity, Record, ResultSet, Role};
use crate::table::{Align, Table, format_bytes, format_change, format_count, format_number};

/// The header every report starts with: what was run, where, and how to read it.
pub fn environment_section(set: &ResultSet) -> String {
    let env = &set.environment;
    let mut t = Table::new()
        .column("Environment", Align::Left)
        .column("", Align::Left);
    t.row(vec!["CPU".into(), env.cpu_model.clone()]);
    t.row(vec!["Cores".into(), env.cores.to_string()]);
    t.row(vec!["OS".into(), env.os.clone()]);
    t.row(vec!["rustc".into(), env.rustc.clone()]);
    match &env.jvm {
        Some(Ok(run)) => {
            let flags = if run.flags.is_empty() {
                "none beyond JMH's".to_owned()
            } else {
                format!("`{}`", run.flags.join(" "))
            };
            let why = if run.jdk_reason.is_empty() {
                String::new()
            } else {
                format!(" ({})", run.jdk_reason)
            };
            t.row(vec![
                "JVM".into(),
                format!("{}{why}, flags {flags}", run.vm),
            ]);
            t.row(vec![
                "JMH, JOL".into(),
                format!(
                    "JMH {} ({}; the write-up's: {}), JOL {}",
                    run.jmh, run.settings, run.published, run.jol
                ),
            ]);
        }
        Some(Err(why)) => t.row(vec!["JVM".into(), why.clone()]),
        None => {}
    }
    let crates: Vec<String> = env.crates.iter().map(|(k, v)| format!("{k} {v}")).collect();
    t.row(vec!["Crates".into(), crates.join(", ")]);
    t.row(vec!["Git revision".into(), env.git_revision.clone()]);
    t.row(vec!["Date (UTC)".into(), env.date.clone()]);
    t.row(vec!["Mode".into(), set.mode.label().into()]);
    if let Some(stages) = set.timing.and_then(|t| t.stage_seconds) {
        let s = |seconds: f64| format!("{} s", crate::table::format_count(seconds.round() as u64));
        let jvm = if stages.jvm > 0.0 {
            format!(", JMH and JOL {}", s(stages.jvm))
        } else {
            String::new()
        };
        t.row(vec![
            "Measuring time".into(),
            format!(
                "{} (allocation {}, instruction counts {}, wall time {}{jvm}), after the build",
                s(stages.total()),
                s(stages.allocation),
                s(stages.instructions),
                s(stages.wall_time)
            ),
        ]);
    }
    t.render()
}

/// How a value of `metric` is printed in a table cell ([`crate::record::Facts`]).
pub fn format_metric(metric: Metric, value: f64) -> String {
    let facts = metric.facts();
    if facts.scaled_in_tables {
        format_quantity(facts, value)
    } else {
        format_number(value)
    }
}

/// A value scaled to its quantity: a duration, bytes, or a number and its unit.
fn format_quantity(facts: crate::record::Facts, value: f64) -> String {
    match facts.quantity {
        Quantity::Nanoseconds => format_duration(value),
        Quantity::Bytes => format_bytes(value),
        Quantity::Count => format!("{} {}", format_number(value), facts.unit),
    }
}

/// Nanoseconds as a duration in the largest unit that keeps them ≥ 1: `6.67 ms`, `30.0 ns`.
pub fn format_duration(ns: f64) -> String {
    let (scaled, unit) = match ns {
        v if v >= 1e9 => (v / 1e9, "s"),
        v if v >= 1e6 => (v / 1e6, "ms"),
        v if v >= 1e3 => (v / 1e3, "µs"),
        v => (v, "ns"),
    };
    format!("{} {unit}", format_number(scaled))
}

/// A value of `metric` with its unit scaled for a chart label or a sentence: `1.25 ms`,
/// `42.0 ns`, `2.13 MiB`, `3.00 per 100 ops`.
pub fn format_scaled(metric: Metric, value: f64) -> String {
    format_quantity(metric.facts(), value)
}

/// `; values 2.25×`: the ratio of the two printed values, where a per-pass comparison's ratio (the
/// median of the per-pass ratios) has an interval it falls outside, so a reader who divides the
/// printed values is told why the printed ratio differs; empty otherwise.
pub fn values_ratio_note(base: &Record, candidate: &Record, c: &Comparison) -> String {
    let values = candidate.value / base.value;
    match c.interval {
        Some(i) if values.is_finite() && !(i.lower..=i.upper).contains(&values) => {
            format!("; values {values:.2}×")
        }
        _ => String::new(),
    }
}

/// What a latency percentile's cell reads when its value is not published because it may be a
/// censored latency ([`crate::latency::Latencies::censors`]): `censored (12 % lower bounds)`.
/// `None` for any other metric or an uncensored percentile.
pub fn censored_cell(set: &ResultSet, id: &BenchId, metric: Metric) -> Option<String> {
    let (_, q) = PERCENTILES.iter().find(|(m, _)| *m == metric)?;
    let latencies = set.find(id, Metric::LatencyHistogram)?.histogram.as_ref()?;
    latencies.censors(*q).then(|| {
        format!(
            "censored ({} % lower bounds)",
            format_number(latencies.censored_share() * 100.0)
        )
    })
}

/// The cell of a value `set` does not hold: censored, or a dash.
pub fn absent_cell(set: &ResultSet, id: &BenchId, metric: Metric) -> String {
    censored_cell(set, id, metric).unwrap_or_else(|| "—".into())
}

fn cell(record: &Record) -> String {
    let value = format_metric(record.metric, record.value);
    match record.interval {
        Some(ci) => format!(
            "{value} [{}–{}]",
            format_metric(record.metric, ci.lower),
            format_metric(record.metric, ci.upper)
        ),
        None => value,
    }
}

/// The verdict's word for `metric`: faster / slower, higher / lower, fewer / more, less / more.
pub fn verdict_word(metric: Metric, verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Better => metric.facts().better,
        Verdict::Worse => metric.facts().worse,
        v => v.word(),
    }
}

/// One row of a comparison table: an experiment and parameter, and how to label it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub experiment: String,
    pub parameter: String,
    pub label: String,
    /// The shorter label of its group in charts.
    pub chart_label: String,
}

impl Row {
    pub fn new(experiment: &str, parameter: &str, label: &str) -> Self {
        Self {
            experiment: experiment.to_owned(),
            parameter: parameter.to_owned(),
            label: label.to_owned(),
            chart_label: parameter.to_owned(),
        }
    }

    /// The row of one parameter of `experiment`: `` `name`: label ``, marked oversubscribed when
    /// it runs more threads than `cores` (in the chart too).
    pub fn of(experiment: &Experiment, parameter: &Parameter, cores: usize) -> Self {
        let mut row = Self::new(
            experiment.name,
            &parameter.name,
            &format!("`{}`: {}", parameter.name, parameter.label_on(cores)),
        );
        if parameter.threads > cores {
            row.chart_label = format!("{} (oversubscribed)", parameter.name);
        }
        row
    }

    /// Every parameter of `experiment` as a row.
    pub fn all(experiment: &Experiment, cores: usize) -> Vec<Self> {
        experiment
            .parameters
            .iter()
            .map(|p| Self::of(experiment, p, cores))
            .collect()
    }

    /// Every parameter of `experiment` as a row of the records a lab derives from it under the
    /// experiment name `derived` (per entry, per producer, in generations).
    pub fn all_derived(experiment: &Experiment, cores: usize, derived: &str) -> Vec<Self> {
        Self::all(experiment, cores)
            .into_iter()
            .map(|row| Self {
                experiment: derived.to_owned(),
                ..row
            })
            .collect()
    }
}

/// A bar chart of `metric` for `rows` (one group each) × `implementations` (one bar each).
pub fn metric_chart(
    set: &ResultSet,
    stem: &str,
    title: &str,
    metric: Metric,
    rows: &[Row],
    implementations: &[&str],
) -> Chart {
    let groups: Vec<(String, Vec<Option<f64>>)> = rows
        .iter()
        .map(|row| {
            let values = implementations
                .iter()
                .map(|i| {
                    set.find(&BenchId::new(&row.experiment, i, &row.parameter), metric)
                        .map(|r| r.value)
                })
                .collect();
            (row.chart_label.clone(), values)
        })
        .collect();
    let reading = if metric.higher_is_better() {
        "longer is better"
    } else {
        "shorter is better"
    };
    Chart {
        stem: stem.to_owned(),
        title: title.to_owned(),
        svg: bar_chart(
            title,
            &format!("{} — {reading}", metric.unit()),
            implementations,
            &groups,
            |v| format_scaled(metric, v),
        ),
    }
}

/// The PR table of a paired comparison: `| Case | A | B | Change |`, each side's median ns/op
/// with its 95 % interval, and the median per-pair change B / A − 1 with its interval and a
/// verdict (`faster` / `slower` only when the ratio's interval excludes 1).
pub fn paired_table(
    set: &ResultSet,
    a: &str,
    b: &str,
    label: impl Fn(&BenchId) -> String,
) -> Table {
    let mut table = Table::new()
        .column("Case", Align::Left)
        .column(&format!("{a} (ns/op)"), Align::Right)
        .column(&format!("{b} (ns/op)"), Align::Right)
        .column("Change", Align::Right);
    for ratio in set.records.iter().filter(|r| {
        r.metric == Metric::PairedRatio
            && r.id.implementation == b
            && r.id.role == Role::RatioTo(a.to_owned())
    }) {
        let side = |name: &str, role: Role| {
            set.find(
                &BenchId::new(&ratio.id.experiment, name, &ratio.id.parameter).with_role(role),
                Metric::NsPerOp,
            )
            .map_or_else(|| "—".to_owned(), cell)
        };
        let percent = |r: f64| format_change((r - 1.0) * 100.0);
        let change = match ratio.interval {
            Some(ci) => {
                let verdict = if ci.upper < 1.0 {
                    "faster"
                } else if ci.lower > 1.0 {
                    "slower"
                } else {
                    "inconclusive"
                };
                format!(
                    "{} [{} … {}] {verdict}",
                    percent(ratio.value),
                    percent(ci.lower),
                    percent(ci.upper)
                )
            }
            None => percent(ratio.value),
        };
        let b_side = crate::paired::b_side_role(a, b);
        table.row(vec![
            label(&ratio.id),
            side(a, Role::Design),
            side(b, b_side),
            change,
        ]);
    }
    table
}

/// The latency percentiles of one row, one line per implementation (baseline first, then its
/// A/A twin when measured): p50 … max from the histogram of all passes merged, and how many
/// operations it holds. A percentile the count cannot resolve (p99.9 of fewer than 1,000
/// operations) shows `—`: it would only repeat the maximum.
pub fn latency_table(set: &ResultSet, row: &Row, implementations: &[&str]) -> Table {
    let mut table = Table::new().column("Design", Align::Left);
    for (_, q) in PERCENTILES {
        let header = if q >= 1.0 {
            "max".to_owned()
        } else {
            format!("p{}", format_number(q * 100.0).trim_end_matches(".0"))
        };
        table = table.column(&header, Align::Right);
    }
    table = table.column("operations recorded", Align::Right);
    let baseline = BenchId::new(&row.experiment, implementations[0], &row.parameter);
    let ids = std::iter::once(baseline.clone())
        .chain(std::iter::once(baseline.with_role(Role::Twin)))
        .chain(
            implementations[1..]
                .iter()
                .map(|name| BenchId::new(&row.experiment, name, &row.parameter)),
        );
    for id in ids {
        let Some(histogram) = set.find(&id, Metric::LatencyHistogram) else {
            continue;
        };
        let count = histogram.value;
        let mut cells = vec![id.cell_name()];
        for (metric, q) in PERCENTILES {
            let resolvable = q >= 1.0 || count * (1.0 - q) >= 1.0;
            cells.push(match set.find(&id, metric) {
                Some(r) if resolvable => format_duration(r.value),
                _ => absent_cell(set, &id, metric),
            });
        }
        cells.push(format_count(count.round() as u64));
        table.row(cells);
    }
    table
}

/// The percentile curves of one row's implementations (from the merged histograms).
pub fn latency_chart(
    set: &ResultSet,
    stem: &str,
    title: &str,
    row: &Row,
    implementations: &[&str],
) -> Chart {
    let lines: Vec<Vec<(f64, f64)>> = implementations
        .iter()
        .map(|name| {
            let id = BenchId::new(&row.experiment, name, &row.parameter);
            set.find(&id, Metric::LatencyHistogram)
                .and_then(|r| r.histogram.as_ref())
                .map(|h| {
                    h.curve()
                        .into_iter()
                        .map(|(q, ns)| (q, ns as f64))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    Chart {
        stem: stem.to_owned(),
        title: title.to_owned(),
        svg: percentile_chart(title, implementations, &lines),
    }
}

/// The timer's own cost per recorded operation in this run (median over passes), if any pass
/// recorded latencies.
pub fn timer_overhead_ns(set: &ResultSet) -> Option<f64> {
    set.records
        .iter()
        .find(|r| r.metric == Metric::TimerOverheadNs)
        .map(|r| r.value)
}

/// Every id with every metric measured for it, in one table: the join of all measurements.
pub fn joined_table(set: &ResultSet) -> Table {
    const METRICS: [Metric; 8] = [
        Metric::NsPerOp,
        Metric::OpsPerSec,
        Metric::InstructionsPerOp,
        Metric::EstimatedCyclesPerOp,
        Metric::AllocsPerOp,
        Metric::BytesPerOp,
        Metric::RetainedBytes,
        Metric::RetainedUsableBytes,
    ];
    let present: Vec<Metric> = METRICS
        .into_iter()
        .filter(|m| set.records.iter().any(|r| r.metric == *m))
        .collect();
    let mut ids: Vec<&BenchId> = set
        .records
        .iter()
        .filter(|r| present.contains(&r.metric))
        .map(|r| &r.id)
        .collect();
    ids.sort();
    ids.dedup();
    let mut table = Table::new().column("Id", Align::Left);
    for m in &present {
        table = table.column(m.facts().column, Align::Right);
    }
    for id in ids {
        let mut cells = vec![format!("`{id}`")];
        for m in &present {
            cells.push(
                set.find(id, *m)
                    .map_or(String::new(), |r| format_metric(*m, r.value)),
            );
        }
        table.row(cells);
    }
    table
}

#[cfg(test)]
mod tests;
