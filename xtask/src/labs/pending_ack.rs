//! The pending-ack-lab report: the seed's table shapes (rows = datasets, columns =
//! implementations, nested-tree = 1.00×), a row-by-row check of the seed's trade-offs, and the
//! dense-window targets, all computed from the measured records.

use labkit::compare::{Verdict, compare};
use labkit::record::{BenchId, Metric, Record, ResultSet};
use labkit::table::{Align, Table, format_bytes, format_change};
use pending_ack_lab::workload::{COUNTED_OPS, DATASETS, Dataset, Experiment, RETAINED_CASES};

use super::{Lab, SMOKE, Timing};
use crate::chart::{Chart, log_log_chart};
use crate::render::{Row, comparison_table, format_metric, joined_table, metric_chart};

pub const LAB: Lab = Lab {
    name: "pending-ack",
    package: "pending-ack-lab",
    title: "pending-ack-lab: the per-consumer pending-ack map",
    crates: &[
        "criterion",
        "gungraun",
        "dhat",
        "hashbrown",
        "roaring",
        "foldhash",
        "ahash",
        "proptest",
    ],
    implementations: || {
        pending_ack_lab::implementation_names()
            .iter()
            .map(|s| s.to_string())
            .collect()
    },
    parameters: || {
        let datasets = DATASETS.iter().map(|d| d.name.to_owned());
        datasets
            .chain(RETAINED_CASES.iter().map(|c| c.name.to_owned()))
            .collect()
    },
    timed_ids: || {
        let implementations = pending_ack_lab::implementation_names();
        Experiment::ALL
            .iter()
            .flat_map(|e| e.datasets().into_iter().map(move |d| (e.name(), d.name)))
            .flat_map(|(e, d)| {
                implementations
                    .iter()
                    .map(move |i| BenchId::new(e, i, d))
                    .collect::<Vec<_>>()
            })
            .collect()
    },
    experiments: &[
        "dispatch-and-ack-cycle",
        "dispatch-ack-and-partial-ack-cycle",
        "shuffled-ack-cycle",
        "remove-all-up-to",
        "same-ledger-small-prefix",
        "same-ledger-before-window",
        "add-or-replace",
        "remove-and-add",
        "update-remaining",
        "contains-hit",
        "get-remaining-hit",
        "for-each-scan",
        "footprint",
        "retained-capacity",
    ],
    instruction_ops: |experiment| {
        Experiment::find(experiment).map_or(COUNTED_OPS, |e| e.ops_for(COUNTED_OPS))
    },
    // 228 criterion benchmarks: about 3 s each in full mode keeps the timing stage near 12 min.
    timing: [
        Timing {
            warm_up: "0.5",
            measurement: "2.5",
            samples: "30",
        },
        Timing {
            warm_up: "0.1",
            measurement: "0.3",
            samples: "10",
        },
        SMOKE,
    ],
    render,
    case_label: |_, id| {
        let dataset = Dataset::find(&id.parameter).map_or_else(|_| String::new(), |d| d.label());
        format!("{} · `{}` ({dataset})", id.experiment, id.parameter)
    },
    charts,
};

const BASELINE: &str = "nested-tree";
const SEED_PRIMITIVE: &str = "primitive-bucketed";
const OURS: &str = "dense-window";

fn dataset_row(experiment: &str, dataset: &Dataset) -> Row {
    Row {
        experiment: experiment.to_owned(),
        parameter: dataset.name.to_owned(),
        label: format!("`{}`: {}", dataset.name, dataset.label()),
    }
}

fn experiment_rows(experiment: Experiment) -> Vec<Row> {
    experiment
        .datasets()
        .iter()
        .map(|d| dataset_row(experiment.name(), d))
        .collect()
}

/// Rows for every (experiment, dataset) that has `metric` in the set.
fn measured_rows(set: &ResultSet, metric: Metric) -> Vec<Row> {
    Experiment::ALL
        .iter()
        .flat_map(|e| {
            e.datasets().into_iter().map(move |d| Row {
                experiment: e.name().to_owned(),
                parameter: d.name.to_owned(),
                label: format!("{} · `{}`", e.name(), d.name),
            })
        })
        .filter(|row| {
            set.records.iter().any(|r| {
                r.metric == metric
                    && r.id.experiment == row.experiment
                    && r.id.parameter == row.parameter
            })
        })
        .collect()
}

/// Footprint divided by each dataset's entry count, as `footprint-per-entry` records.
fn per_entry(set: &ResultSet, metric: Metric) -> ResultSet {
    let records = set
        .records
        .iter()
        .filter(|r| r.id.experiment == "footprint" && r.metric == metric)
        .filter_map(|r| {
            let dataset = Dataset::find(&r.id.parameter).ok()?;
            let id = BenchId::new("footprint-per-entry", &r.id.implementation, dataset.name);
            Some(Record::new(id, metric, r.value / dataset.entries as f64))
        })
        .collect();
    ResultSet {
        lab: set.lab.clone(),
        mode: set.mode,
        environment: set.environment.clone(),
        records,
    }
}

/// A published number of the seed (draft #26024 or #26030): old tree → primitive layout.
struct SeedRow {
    experiment: &'static str,
    parameter: &'static str,
    metric: Metric,
    old: f64,
    new: f64,
    unit: &'static str,
}

const fn seed(
    experiment: &'static str,
    parameter: &'static str,
    metric: Metric,
    old: f64,
    new: f64,
    unit: &'static str,
) -> SeedRow {
    SeedRow {
        experiment,
        parameter,
        metric,
        old,
        new,
        unit,
    }
}

/// The seed's rows (`../shared/seeds/002_*.txt`), as published.
#[rustfmt::skip]
const SEED_ROWS: &[SeedRow] = &[
    seed("dispatch-and-ack-cycle", "50k-in-1", Metric::NsPerOp, 204.8, 192.9, "ns"),
    seed("dispatch-and-ack-cycle", "50k-in-5", Metric::NsPerOp, 181.1, 129.5, "ns"),
    seed("dispatch-and-ack-cycle", "50k-in-10", Metric::NsPerOp, 189.3, 172.8, "ns"),
    seed("dispatch-and-ack-cycle", "50k-in-20", Metric::NsPerOp, 265.9, 163.7, "ns"),
    seed("dispatch-ack-and-partial-ack-cycle", "50k-in-1", Metric::NsPerOp, 216.2, 158.4, "ns"),
    seed("dispatch-ack-and-partial-ack-cycle", "50k-in-5", Metric::NsPerOp, 185.3, 126.1, "ns"),
    seed("dispatch-ack-and-partial-ack-cycle", "50k-in-10", Metric::NsPerOp, 178.5, 131.5, "ns"),
    seed("dispatch-ack-and-partial-ack-cycle", "50k-in-20", Metric::NsPerOp, 180.1, 122.1, "ns"),
    seed("remove-all-up-to", "50k-in-1", Metric::NsPerOp, 788.7, 1903.1, "µs"),
    seed("remove-all-up-to", "50k-in-5", Metric::NsPerOp, 572.1, 430.7, "µs"),
    seed("remove-all-up-to", "50k-in-10", Metric::NsPerOp, 533.4, 204.1, "µs"),
    seed("remove-all-up-to", "50k-in-20", Metric::NsPerOp, 487.6, 122.5, "µs"),
    seed("same-ledger-small-prefix", "50k-in-1", Metric::NsPerOp, 43.2, 63.1, "µs"),
    seed("add-or-replace", "50k-in-1", Metric::BytesPerOp, 47.939, 0.000225, "B/op"),
    seed("remove-and-add", "50k-in-1", Metric::BytesPerOp, 87.94, 0.000544, "B/op"),
    seed("update-remaining", "50k-in-1", Metric::BytesPerOp, 47.94, 0.000257, "B/op"),
    seed("dispatch-and-ack-cycle", "50k-in-1", Metric::BytesPerOp, 108.244, 111.634, "B/op"),
    seed("dispatch-and-ack-cycle", "50k-in-5", Metric::BytesPerOp, 111.705, 80.141, "B/op"),
    seed("dispatch-and-ack-cycle", "50k-in-10", Metric::BytesPerOp, 111.41, 80.148, "B/op"),
    seed("dispatch-and-ack-cycle", "50k-in-20", Metric::BytesPerOp, 110.818, 80.155, "B/op"),
    seed("footprint", "100-in-1", Metric::RetainedBytes, 8.9, 4.6, "KiB"),
    seed("footprint", "1k-in-1", Metric::RetainedBytes, 86.3, 34.4, "KiB"),
    seed("footprint", "25k-in-1", Metric::RetainedBytes, 2.10, 1.06, "MiB"),
    seed("footprint", "50k-in-1", Metric::RetainedBytes, 4.20, 2.13, "MiB"),
    seed("footprint", "50k-in-5", Metric::RetainedBytes, 4.20, 1.33, "MiB"),
    seed("footprint", "50k-in-10", Metric::RetainedBytes, 4.20, 1.33, "MiB"),
    seed("footprint", "50k-in-20", Metric::RetainedBytes, 4.20, 1.33, "MiB"),
    seed("footprint", "200k-in-100", Metric::RetainedBytes, 16.80, 6.66, "MiB"),
    seed("footprint", "200k-in-500", Metric::RetainedBytes, 16.84, 8.37, "MiB"),
    seed("footprint", "1k-in-100", Metric::RetainedBytes, 97.1, 68.2, "KiB"),
    seed("footprint", "1k-in-500", Metric::RetainedBytes, 140.8, 340.1, "KiB"),
    seed("footprint", "1k-in-1000", Metric::RetainedBytes, 195.5, 679.9, "KiB"),
    seed("retained-capacity", "50k-in-1-clear-all", Metric::RetainedBytes, 216.0, 216.0, "B"),
    seed("retained-capacity", "50k-in-1-keep-1", Metric::RetainedBytes, 0.406, 2181.1, "KiB"),
    seed("retained-capacity", "50k-in-1-keep-1k", Metric::RetainedBytes, 86.3, 2181.1, "KiB"),
    seed("retained-capacity", "50k-in-5-keep-1k", Metric::RetainedBytes, 86.3, 272.4, "KiB"),
    seed("retained-capacity", "50k-in-20-keep-1k", Metric::RetainedBytes, 86.3, 68.4, "KiB"),
];

/// Whether the lab's direction matches the seed's: both better, both worse, or both unchanged.
fn reproduces(seed_change: f64, verdict: Verdict) -> &'static str {
    let seed_direction = if seed_change.abs() < 1.0 {
        Verdict::Same
    } else if seed_change < 0.0 {
        Verdict::Better
    } else {
        Verdict::Worse
    };
    match (seed_direction, verdict) {
        (_, Verdict::Inconclusive) => "inconclusive",
        (s, v) if s == v => "yes",
        (Verdict::Same, _) => "no (the lab shows a difference)",
        (_, Verdict::Same) => "no (no difference here)",
        _ => "**no (reversed)**",
    }
}

fn seed_table(set: &ResultSet) -> Table {
    let mut table = Table::new()
        .column("Row", Align::Left)
        .column("Seed: old tree → primitive", Align::Right)
        .column("Seed change", Align::Right)
        .column("Lab: nested-tree → primitive-bucketed", Align::Right)
        .column("Lab change", Align::Right)
        .column("Reproduces?", Align::Left);
    for row in SEED_ROWS {
        let find = |implementation: &str| {
            set.find(
                &BenchId::new(row.experiment, implementation, row.parameter),
                row.metric,
            )
        };
        let seed_change = (row.new / row.old - 1.0) * 100.0;
        let (lab, lab_change, verdict) = match (find(BASELINE), find(SEED_PRIMITIVE)) {
            (Some(old), Some(new)) => {
                let c = compare(old, new);
                let change = if c.ratio.is_finite() {
                    format_change(c.change_percent)
                } else {
                    "(baseline 0)".into()
                };
                (
                    format!(
                        "{} → {}",
                        format_metric(row.metric, old.value),
                        format_metric(row.metric, new.value)
                    ),
                    change,
                    reproduces(seed_change, c.verdict),
                )
            }
            _ => ("not measured".into(), String::new(), ""),
        };
        table.row(vec![
            format!(
                "{} · `{}` ({})",
                row.experiment,
                row.parameter,
                row.metric.unit()
            ),
            format!("{} → {} {}", row.old, row.new, row.unit),
            format_change(seed_change),
            lab,
            lab_change,
            verdict.into(),
        ]);
    }
    table
}

/// One of issue 4's targets for dense-window, checked against the measured value.
struct Target {
    what: String,
    measured: String,
    met: Option<bool>,
}

fn value<'a>(
    set: &'a ResultSet,
    experiment: &str,
    implementation: &str,
    parameter: &str,
    metric: Metric,
) -> Option<&'a Record> {
    set.find(&BenchId::new(experiment, implementation, parameter), metric)
}

fn targets(set: &ResultSet) -> Vec<Target> {
    let mut out = Vec::new();
    let mut bound =
        |what: String, record: Option<&Record>, limit: f64, show: &dyn Fn(f64) -> String| {
            out.push(match record {
                Some(r) => Target {
                    what,
                    measured: show(r.value),
                    met: Some(r.value <= limit),
                },
                None => Target {
                    what,
                    measured: "not measured".into(),
                    met: None,
                },
            });
        };
    let ns = |v: f64| format!("{} ns", format_metric(Metric::NsPerOp, v));
    let time_targets = [
        (Experiment::DispatchAndAckCycle, "≤ 15 ns/op", 15.0),
        (Experiment::RemoveAllUpTo, "(half) ≤ 50 µs", 50_000.0),
        (
            Experiment::SameLedgerSmallPrefix,
            "(2 % prefix) ≤ 3 µs",
            3_000.0,
        ),
    ];
    for (experiment, what, limit) in time_targets {
        for d in experiment.datasets() {
            if experiment == Experiment::SameLedgerSmallPrefix && d.name != "50k-in-1" {
                continue; // the target names the 50k ledger
            }
            let r = value(set, experiment.name(), OURS, d.name, Metric::NsPerOp);
            bound(
                format!("{} `{}` {what}", experiment.name(), d.name),
                r,
                limit,
                &ns,
            );
        }
    }
    let allocs = |v: f64| format!("{} allocs/op", format_metric(Metric::AllocsPerOp, v));
    for e in Experiment::ALL.iter().filter(|e| !e.is_one_shot()) {
        let worst = e
            .datasets()
            .iter()
            .filter_map(|d| value(set, e.name(), OURS, d.name, Metric::AllocsPerOp))
            .max_by(|a, b| a.value.total_cmp(&b.value));
        bound(
            format!("{}: 0 allocations/op (worst dataset)", e.name()),
            worst,
            0.0,
            &allocs,
        );
    }
    let per_entry_set = per_entry(set, Metric::RetainedBytes);
    let bytes_per_entry = |v: f64| format!("{} B/entry", format_metric(Metric::NsPerOp, v));
    let footprint_targets = [
        ("50k-in-1", 12.0),
        ("50k-in-2", 12.0),
        ("50k-in-5", 12.0),
        ("50k-in-10", 12.0),
        ("50k-in-20", 12.0),
        ("1k-in-1000", 64.0),
    ];
    for (d, limit) in footprint_targets {
        let r = value(
            &per_entry_set,
            "footprint-per-entry",
            OURS,
            d,
            Metric::RetainedBytes,
        );
        bound(
            format!("footprint `{d}` ≤ {limit} B/entry"),
            r,
            limit,
            &bytes_per_entry,
        );
    }
    let r = value(
        set,
        "retained-capacity",
        OURS,
        "50k-in-1-keep-1",
        Metric::RetainedBytes,
    );
    bound(
        "50k/1 peak drained to 1 entry ≤ 4 KiB retained".into(),
        r,
        4096.0,
        &format_bytes,
    );
    out
}

/// Rows where dense-window is not faster than the better baseline (nested-tree or
/// primitive-bucketed), with the verdict.
fn not_faster_rows(set: &ResultSet) -> Vec<String> {
    let mut out = Vec::new();
    for e in Experiment::ALL {
        for d in e.datasets() {
            let get = |i: &str| value(set, e.name(), i, d.name, Metric::NsPerOp);
            let best = [get(BASELINE), get(SEED_PRIMITIVE)]
                .into_iter()
                .flatten()
                .min_by(|a, b| a.value.total_cmp(&b.value));
            if let (Some(best), Some(ours)) = (best, get(OURS)) {
                let c = compare(best, ours);
                if c.verdict != Verdict::Better {
                    out.push(format!(
                        "`{}/{}`: {} vs {} ({}, {})",
                        e.name(),
                        d.name,
                        format_metric(Metric::NsPerOp, ours.value),
                        format_metric(Metric::NsPerOp, best.value),
                        format_change(c.change_percent),
                        c.verdict.word()
                    ));
                }
            }
        }
    }
    out
}

fn charts(set: &ResultSet) -> Vec<Chart> {
    let implementations = pending_ack_lab::implementation_names();
    let mut charts: Vec<Chart> = Experiment::ALL
        .iter()
        .map(|e| {
            metric_chart(
                set,
                &format!("pending-ack-{}-ns", e.name()),
                &format!("pending-ack: {} (ns/op, median)", e.name()),
                Metric::NsPerOp,
                &experiment_rows(*e),
                &implementations,
            )
        })
        .collect();
    let per_entry_rows: Vec<Row> = DATASETS
        .iter()
        .map(|d| dataset_row("footprint-per-entry", d))
        .collect();
    let retained_per_entry = per_entry(set, Metric::RetainedBytes);
    // Bytes per entry against the average ledger size, the parameter that governs per-ledger
    // overhead: the sparse datasets sit on the left, one big ledger on the right.
    let lines: Vec<Vec<(f64, f64, String)>> = implementations
        .iter()
        .map(|implementation| {
            DATASETS
                .iter()
                .filter_map(|d| {
                    let id = BenchId::new("footprint-per-entry", implementation, d.name);
                    let bytes = retained_per_entry.find(&id, Metric::RetainedBytes)?.value;
                    let label = format!("{} — {bytes:.1} B/entry", d.name);
                    Some((d.entries as f64 / d.ledgers as f64, bytes, label))
                })
                .collect()
        })
        .collect();
    let title = "pending-ack: retained bytes per entry against entries per ledger";
    charts.push(Chart {
        stem: "pending-ack-footprint-vs-ledger-size".into(),
        title: title.into(),
        svg: log_log_chart(
            title,
            "entries per ledger (all 16 datasets)",
            "retained bytes per entry",
            &implementations,
            &lines,
        ),
    });
    charts.push(metric_chart(
        &retained_per_entry,
        "pending-ack-footprint-per-entry",
        "pending-ack: retained bytes per entry by dataset (entries-in-ledgers)",
        Metric::RetainedBytes,
        &per_entry_rows,
        &implementations,
    ));
    charts
}

fn render(set: &ResultSet) -> String {
    let implementations = pending_ack_lab::implementation_names();
    let table = |set: &ResultSet, metric: Metric, rows: &[Row]| {
        comparison_table(set, metric, rows, &implementations).render()
    };
    let mut out = String::from(
        "How to read: rows are the seed's datasets (`<entries>-in-<ledgers>`), columns the \
         implementations with `nested-tree` (Pulsar's merged shape) as the 1.00× baseline. Each \
         cell: median [95 % confidence interval], ratio to the baseline, change, and a verdict \
         that is `inconclusive` whenever the two intervals overlap. `primitive-bucketed` is draft \
         #26024's layout; `dense-window` is this lab's design (see the design notes).\n\n",
    );
    out.push_str(&format!(
        "## The seed's trade-offs, row by row\n\n\
         The seed's published numbers (Java, JMH, JOL) next to the same rows measured here. \
         \"Reproduces\" compares directions (faster/slower, more/less), not magnitudes.\n\n{}\n",
        seed_table(set).render()
    ));
    out.push_str("## Time per op (ns/op, median [95 % CI])\n\n");
    for e in Experiment::ALL {
        out.push_str(&format!(
            "### `{}`\n\n{}.\n\n{}\n",
            e.name(),
            e.description(),
            table(set, Metric::NsPerOp, &experiment_rows(e))
        ));
    }
    out.push_str(&format!(
        "## Instructions per op (callgrind)\n\n\
         gungraun; deterministic for a given binary. Per-entry ops are averaged over {COUNTED_OPS} \
         ops after warm-up; cleanups and scans are one call.\n\n{}\n",
        table(
            set,
            Metric::InstructionsPerOp,
            &measured_rows(set, Metric::InstructionsPerOp)
        )
    ));
    out.push_str(&format!(
        "## Allocations per op (steady state)\n\n\
         Counting allocator in its own process, after each scenario's warm-up (cycles: three \
         windows). Cleanups: one `remove_all_up_to` on a freshly built map.\n\n\
         ### allocs/op\n\n{}\n### bytes/op\n\n{}\n",
        table(
            set,
            Metric::AllocsPerOp,
            &measured_rows(set, Metric::AllocsPerOp)
        ),
        table(
            set,
            Metric::BytesPerOp,
            &measured_rows(set, Metric::BytesPerOp)
        )
    ));
    let footprint_rows: Vec<Row> = DATASETS
        .iter()
        .map(|d| dataset_row("footprint", d))
        .collect();
    let per_entry_rows: Vec<Row> = DATASETS
        .iter()
        .map(|d| dataset_row("footprint-per-entry", d))
        .collect();
    out.push_str(&format!(
        "## Retained footprint\n\n\
         Live heap of a map holding the whole dataset (requested bytes; the usable-size table \
         adds the allocator's slack).\n\n### bytes per entry\n\n{}\n### retained bytes\n\n{}\n\
         ### retained bytes, malloc usable size\n\n{}\n",
        table(
            &per_entry(set, Metric::RetainedBytes),
            Metric::RetainedBytes,
            &per_entry_rows
        ),
        table(set, Metric::RetainedBytes, &footprint_rows),
        table(set, Metric::RetainedUsableBytes, &footprint_rows)
    ));
    let retained_rows: Vec<Row> = RETAINED_CASES
        .iter()
        .map(|c| Row {
            experiment: "retained-capacity".into(),
            parameter: c.name.into(),
            label: format!(
                "`{}`: peak `{}`, `remove_all_up_to` keeping {}",
                c.name, c.dataset, c.keep
            ),
        })
        .collect();
    out.push_str(&format!(
        "## Retained capacity\n\n\
         Heap left after the seed's peak-then-cleanup cases.\n\n{}\n",
        table(set, Metric::RetainedBytes, &retained_rows)
    ));
    out.push_str(&design_notes(set));
    out.push_str(&format!(
        "## All measurements by id\n\n{}",
        joined_table(set).render()
    ));
    out
}

fn design_notes(set: &ResultSet) -> String {
    let mut targets_table = Table::new()
        .column("Target (issue 4)", Align::Left)
        .column("dense-window", Align::Right)
        .column("Met?", Align::Left);
    for t in targets(set) {
        let met = match t.met {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "—",
        };
        targets_table.row(vec![t.what, t.measured, met.into()]);
    }
    let slower = not_faster_rows(set);
    let slower = if slower.is_empty() {
        "none: dense-window is faster than both baselines on every timed row.\n".to_owned()
    } else {
        slower
            .iter()
            .map(|s| format!("- {s}\n"))
            .collect::<String>()
    };
    format!(
        "## Design notes: `dense-window`\n\n\
         Built from how pending acks behave: a consumer's entries in a ledger are dispatched in \
         increasing, nearly contiguous entry-id order, acked mostly near-FIFO, cleaned up by \
         prefix; ledgers come and go in order.\n\n\
         - **Outer level**: a `VecDeque` of ledgers sorted by id; new ledgers are pushed at the \
         back, drained ones popped at the front, lookups try the newest and oldest ledger before a \
         binary search. 32 bytes per ledger.\n\
         - **Per ledger**: one entry inline (no allocation: the 1-entry-per-ledger rows); a ring \
         of packed values indexed by `entry − base` while the ledger is dense (exact ops are an \
         index computation; prefix cleanup pops from the front); an ordered `BTreeMap` once a \
         ring would need more than 4 slots per entry (huge gaps).\n\
         - **Memory**: rings grow by 1.25× (not 2×), so dense ledgers cost 8–10 bytes per entry; \
         prefix cleanup shrinks a ring holding under a quarter of its capacity; rings emptied by \
         single acks are reused by the next ledgers (within 2 slots per live entry), so steady \
         cycles allocate nothing.\n\
         - **Costs**: a ring thinned by random single acks keeps its span (8 bytes per slot) \
         until its front is acked or a cleanup runs; a ledger that turned sparse stays a \
         `BTreeMap` until it empties; an entry far before a ring's base grows the ring at the \
         front (bounded by the same density limit).\n\n\
         ### Targets, checked from this run\n\n{}\n\
         ### Timed rows where dense-window is not faster than the better baseline\n\n{slower}\n",
        targets_table.render()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::env::Environment;
    use labkit::record::{Interval, RunMode};

    fn timed(experiment: &str, implementation: &str, value: f64) -> Record {
        Record::new(
            BenchId::new(experiment, implementation, "50k-in-1"),
            Metric::NsPerOp,
            value,
        )
        .with_interval(Interval {
            lower: value * 0.99,
            upper: value * 1.01,
            confidence: 0.95,
        })
    }

    fn set(records: Vec<Record>) -> ResultSet {
        ResultSet {
            lab: "pending-ack".into(),
            mode: RunMode::Full,
            environment: Environment::fixed_for_tests(),
            records,
        }
    }

    #[test]
    fn seed_rows_say_whether_the_direction_reproduces() {
        let s = set(vec![
            timed("remove-all-up-to", BASELINE, 300_000.0),
            timed("remove-all-up-to", SEED_PRIMITIVE, 500_000.0),
            timed("dispatch-and-ack-cycle", BASELINE, 100.0),
            timed("dispatch-and-ack-cycle", SEED_PRIMITIVE, 150.0),
        ]);
        let out = seed_table(&s).render();
        let line = |needle: &str| out.lines().find(|l| l.contains(needle)).unwrap().to_owned();
        assert!(
            line("remove-all-up-to · `50k-in-1`").ends_with("| yes |"),
            "{out}"
        );
        assert!(
            line("dispatch-and-ack-cycle · `50k-in-1` (ns/op)").contains("**no (reversed)**"),
            "{out}"
        );
        assert!(line("`50k-in-5`").contains("not measured"), "{out}");
    }

    #[test]
    fn targets_are_checked_against_the_measured_values() {
        let s = set(vec![
            timed("dispatch-and-ack-cycle", OURS, 12.0),
            timed("same-ledger-small-prefix", OURS, 3_500.0),
        ]);
        let t = targets(&s);
        let find = |needle: &str| t.iter().find(|t| t.what.contains(needle)).unwrap();
        assert_eq!(find("dispatch-and-ack-cycle `50k-in-1`").met, Some(true));
        assert_eq!(find("2 % prefix").met, Some(false));
        assert_eq!(find("`1k-in-1000`").met, None);
    }

    #[test]
    fn rows_where_ours_is_not_faster_are_listed() {
        let s = set(vec![
            timed("remove-all-up-to", BASELINE, 100.0),
            timed("remove-all-up-to", SEED_PRIMITIVE, 90.0),
            timed("remove-all-up-to", OURS, 91.0),
            timed("dispatch-and-ack-cycle", BASELINE, 100.0),
            timed("dispatch-and-ack-cycle", OURS, 20.0),
        ]);
        let rows = not_faster_rows(&s);
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert!(
            rows[0].starts_with("`remove-all-up-to/50k-in-1`"),
            "{rows:?}"
        );
    }

    #[test]
    fn the_whole_report_renders_from_an_empty_set() {
        let out = render(&set(vec![]));
        assert!(out.contains("## Design notes: `dense-window`"));
        assert!(out.contains("### `shuffled-ack-cycle`"));
    }
}
