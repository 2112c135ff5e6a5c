//! The sections the kit writes around a lab's pages, the same for every lab: how far the verdicts
//! can be trusted, the chart links, and the details' appendix on the run itself.

use crate::chart::Chart;
use crate::lab::Describe;
use crate::record::{Baselines, BenchId, ResultSet, RunMode};

/// The verdict rules and the trust summary, how the verdicts fared in the run this one replaced
/// (a full run's only), then the lab's own checks of its run (`trust`, markdown).
pub(super) fn trust(
    lab: &dyn Describe,
    set: &ResultSet,
    baselines: &Baselines,
    trust: Option<String>,
) -> String {
    let single_threaded = |id: &BenchId| crate::lab::single_threaded(lab, id);
    let mut verdicts = crate::verdicts::verdict_section(set, baselines, &single_threaded)
        .map(|section| format!("{section}\n"))
        .unwrap_or_default();
    if set.mode == RunMode::Full || set.previous.is_some() {
        verdicts = format!("{verdicts}{}\n", crate::travel::section(set, baselines));
    }
    match trust {
        Some(checks) => format!("{verdicts}### This lab's checks of its run\n\n{checks}\n"),
        None => verdicts,
    }
}

/// The main page's chart links, and the details' section of latency charts (one per row, those
/// `per_row` marks), empty when there are none.
pub(super) fn chart_links(charts: &[Chart], per_row: &[bool]) -> (String, String) {
    let links = |latency: bool| -> String {
        let links: Vec<(&str, &str)> = charts
            .iter()
            .zip(per_row)
            .filter(|(_, per_row)| **per_row == latency)
            .map(|(c, _)| {
                // The lab's name opens every title; the page already says it.
                let title = c
                    .title
                    .split_once(": ")
                    .map_or(c.title.as_str(), |(_, t)| t);
                (title, c.stem.as_str())
            })
            .collect();
        crate::chart::links::grouped(&links)
    };
    let latency_links = match links(true) {
        l if l.is_empty() => String::new(),
        l => format!("## Latency charts, one per row\n\n{l}\n\n"),
    };
    let main = match per_row.iter().filter(|l| **l).count() {
        0 => format!("{}\n", links(false)),
        n => format!(
            "{}\n\nThe latency percentile curves of {n} rows are linked from the details.\n",
            links(false)
        ),
    };
    (main, latency_links)
}

/// The details' sections on the run itself: rows that did not detect a slowdown, where the cost
/// model and the wall time disagree, what the machine did to each pass, placements that differ,
/// and the time each case took.
pub(super) fn appendix(lab: &dyn Describe, set: &ResultSet, baselines: &Baselines) -> String {
    let single_threaded = |id: &BenchId| crate::lab::single_threaded(lab, id);
    let case_time = crate::report::case_time_section(set)
        .map(|section| format!("{section}\n"))
        .unwrap_or_default();
    let disturbances = crate::resolution::disturbance_table(set)
        .map(|t| format!("## What the machine did to each pass\n\n{}\n", t.render()))
        .unwrap_or_default();
    let placements = crate::resolution::placements(set)
        .map(|(_, t)| {
            format!(
                "## Placements in which a cell is really different\n\nA pass whose outlier came \
                 back when it was run again with the same seed (code layout, stack and heap \
                 offsets, orders): `--seed` reproduces each.\n\n{}\n",
                t.render()
            )
        })
        .unwrap_or_default();
    let disagreements = crate::verdicts::disagreement_table(set, baselines)
        .map(|t| {
            format!(
                "## Where the wall-time verdict and the cost model disagree\n\nInstructions per \
                 operation (callgrind) and estimated cycles per operation are deterministic and \
                 the same on every machine, but the cycles are a model, not a measurement: \
                 callgrind simulates a fixed cache geometry (32 KiB 8-way L1i and L1d, 8 MiB \
                 16-way last level, 64-byte lines) and gungraun weighs it as L1 hits + 5 × LL hits \
                 + 35 × RAM hits, ignoring branch prediction, overlap of independent work and \
                 prefetching. The decisive single-threaded cells whose model (instructions where \
                 no cycles were simulated) does not show their verdict's direction:\n\n{}\n",
                t.render()
            )
        })
        .unwrap_or_default();
    let undetected = crate::resolution::undetected(set, baselines.all()[0], &single_threaded)
        .map(|text| format!("## Rows that did not detect a slowdown\n\n{text}\n\n"))
        .unwrap_or_default();
    format!("{undetected}{disagreements}{disturbances}{placements}{case_time}")
}
