//! The dedup-lab report: the seed's table shape (cases × implementations, topic-mutex = 1.00×).

use dedup_lab::workload::{SHAPES, Shape};
use labkit::record::{BenchId, Metric, ResultSet};

use super::{Lab, SMOKE, Timing};
use crate::chart::Chart;
use crate::render::{Row, comparison_table, joined_table, metric_chart};

pub const LAB: Lab = Lab {
    name: "dedup",
    package: "dedup-lab",
    title: "dedup-lab: producer sequence-id deduplication",
    crates: &[
        "criterion",
        "gungraun",
        "dhat",
        "papaya",
        "dashmap",
        "foldhash",
        "proptest",
        "loom",
    ],
    implementations: || {
        dedup_lab::implementation_names()
            .iter()
            .map(|s| s.to_string())
            .collect()
    },
    parameters: || SHAPES.iter().map(|s| s.name()).collect(),
    timed_ids: || {
        let implementations = dedup_lab::implementation_names();
        SHAPES
            .iter()
            .flat_map(|s| {
                implementations
                    .iter()
                    .map(move |i| BenchId::new("admission", i, &s.name()))
            })
            .collect()
    },
    experiments: &["admission", "footprint"],
    instruction_ops: |_| 1_000,
    timing: [
        Timing {
            warm_up: "1",
            measurement: "4",
            samples: "50",
        },
        Timing {
            warm_up: "0.2",
            measurement: "0.6",
            samples: "20",
        },
        SMOKE,
    ],
    render,
    case_label,
    charts,
};

/// Footprint parameters, as the alloc binary names them.
const FOOTPRINT: [&str; 3] = ["1-producers", "500-producers", "10000-producers"];

fn shape_rows(set: &ResultSet, experiment: &str, keep: impl Fn(Shape) -> bool) -> Vec<Row> {
    let cores = set.environment.cores;
    SHAPES
        .into_iter()
        .filter(|s| keep(*s))
        .map(|s| {
            let over = if s.threads() > cores {
                format!(
                    " — **oversubscribed: {} threads on {cores} cores**",
                    s.threads()
                )
            } else {
                String::new()
            };
            Row {
                experiment: experiment.to_owned(),
                parameter: s.name(),
                label: format!("`{}`: {}{over}", s.name(), s.description()),
            }
        })
        .collect()
}

fn case_label(set: &ResultSet, id: &BenchId) -> String {
    shape_rows(set, &id.experiment, |s| s.name() == id.parameter)
        .pop()
        .map_or_else(|| format!("`{}`", id.parameter), |row| row.label)
}

fn charts(set: &ResultSet) -> Vec<Chart> {
    let implementations = dedup_lab::implementation_names();
    vec![metric_chart(
        set,
        "dedup-admission-ns",
        "dedup: time per admission by thread shape (ns/op, median)",
        Metric::NsPerOp,
        &shape_rows(set, "admission", |_| true),
        &implementations,
    )]
}

fn render(set: &ResultSet) -> String {
    let implementations = dedup_lab::implementation_names();
    let table = |metric: Metric, rows: &[Row]| {
        comparison_table(set, metric, rows, &implementations).render()
    };
    let all = shape_rows(set, "admission", |_| true);
    let contended = shape_rows(set, "admission", |s| s.threads() > 1);
    let single = shape_rows(set, "admission", |s| s.threads() == 1);
    let footprint: Vec<Row> = FOOTPRINT
        .iter()
        .map(|p| Row {
            experiment: "footprint".into(),
            parameter: p.to_string(),
            label: p.replace("-producers", " producers"),
        })
        .collect();
    let mut out = String::new();
    out.push_str(&format!(
        "## Time per admission (ns/op, median [95 % CI])\n\n\
         criterion, `admission/<implementation>/<shape>`. Multi-thread shapes time only the window \
         between two barriers; the time is per thread-operation (as JMH's `avgt` with several \
         threads). Each cell: median [95 % confidence interval], ratio to topic-mutex, change, and a \
         verdict that is `inconclusive` whenever the two intervals overlap.\n\n{}\n",
        table(Metric::NsPerOp, &all)
    ));
    out.push_str(&format!(
        "## Aggregate throughput (ops/s over all threads)\n\n{}\n",
        table(Metric::OpsPerSec, &contended)
    ));
    out.push_str(&format!(
        "## Instructions per admission (callgrind)\n\n\
         gungraun, single-thread shapes only (valgrind serialises threads). Deterministic: these \
         counts repeat exactly for the same binary, so differences are real.\n\n{}\n",
        table(Metric::InstructionsPerOp, &single)
    ));
    out.push_str(&format!(
        "## Allocations per admission (steady state)\n\n\
         Counting allocator in its own process, over a measured window after a warm-up window on \
         the same threads.\n\n### allocs/op\n\n{}\n### bytes/op\n\n{}\n",
        table(Metric::AllocsPerOp, &all),
        table(Metric::BytesPerOp, &all)
    ));
    out.push_str(&format!(
        "## Retained footprint\n\n\
         Live heap of a deduplicator after one message from each of n producers (requested bytes; \
         then as the allocator reserved them, so slack is visible). papaya-based designs include \
         papaya's per-map reclamation collector.\n\n### retained bytes\n\n{}\n\
         ### retained bytes, malloc usable size\n\n{}\n",
        table(Metric::RetainedBytes, &footprint),
        table(Metric::RetainedUsableBytes, &footprint)
    ));
    out.push_str(&format!(
        "## All measurements by id\n\n{}",
        joined_table(set).render()
    ));
    out
}
