//! coalesce-lab's report: its targets, its answers to the write-up, and what its two pages hold
//! (tables of the measured records and of those [`crate::derive`] derives from them, charts).

mod settings;

use labkit::answers::Answers;
use labkit::chart::{Chart, Scale, line_chart};
use labkit::document::{Block, ChartSpec, Document, LabReport, Page};
use labkit::lab::Describe;
use labkit::record::{BenchId, Metric, ResultSet};
use labkit::report::{Lines, Point, Row};
use labkit::table::{Align, Table, format_number};
use labkit::targets::Targets;

use crate::derive::target_experiments;
use crate::derive::{
    client_busy, client_cpu, measured_experiment, server_busy, server_cpu, server_system_cpu,
    waiting,
};
use crate::lab::{CROSS_CHECKED, CoalesceLab, LAB, SCRAPE, SCRAPE_BY_OHA, SERVED};
use crate::waiting::{SLOTS, slot_seconds};
use crate::workload::{BODIES, Cost, PATIENT, Shape, scenarios};

/// What the targets table says below its rows: the reasons for misses, with this run's values.
const TARGETS_NOTES: &str = include_str!("../report/targets-notes.md");

/// Peak heap and peak RSS against users: one line per design over the closed loops of the small
/// body with cheap generation, on log scales.
fn memory_against_users() -> Vec<ChartSpec> {
    let closed: Vec<Point> = scenarios()
        .into_iter()
        .filter(|s| s.body == BODIES[0] && s.cost == Cost::Cheap && !s.gzip && !s.overload)
        .filter_map(|s| match s.shape {
            Shape::Closed { users } if s.timeout == PATIENT => Some(Point {
                x: users as f64,
                parameter: s.name(),
                name: format!("{users} users"),
            }),
            _ => None,
        })
        .collect();
    let charts = [
        (
            Metric::PeakHeapBytes,
            "peak-heap",
            "peak live heap above the pre-run level",
        ),
        (
            Metric::PeakRssBytes,
            "peak-rss",
            "peak resident set of the process",
        ),
    ];
    charts
        .into_iter()
        .map(|(metric, stem, what)| {
            ChartSpec::Lines(Lines {
                stem: format!("coalesce-{stem}-vs-users"),
                title: format!("coalesce: {what} against users, 1 MiB bodies"),
                x_axis: "users (closed loop)".into(),
                y_axis: "MiB".into(),
                metric,
                experiment: SCRAPE.into(),
                points: closed.clone(),
                divisor: f64::from(1 << 20),
                unit: "MiB".into(),
            })
        })
        .collect()
}

/// The overload's requests waiting in the server over its window, per design: the mean backlog
/// at each slot some sample reached ([`crate::waiting`]), as (seconds, requests).
fn waiting_over_time(set: &ResultSet) -> (String, Vec<Vec<(f64, f64)>>) {
    let overload = scenarios()
        .into_iter()
        .find(|s| s.overload)
        .map_or_else(String::new, |s| s.name());
    let lines = LAB
        .implementations()
        .iter()
        .map(|design| {
            (0..SLOTS)
                .filter_map(|k| {
                    let id = BenchId::new(&waiting(k), design, &overload);
                    Some((slot_seconds(k), set.find(&id, Metric::Ratio)?.value))
                })
                .collect()
        })
        .collect();
    (overload, lines)
}

/// The queue-growth chart: requests waiting against time in the overload, one line per design.
fn waiting_chart(set: &ResultSet) -> ChartSpec {
    let (overload, lines) = waiting_over_time(set);
    let labelled: Vec<Vec<(f64, f64, String)>> = lines
        .iter()
        .map(|line| {
            line.iter()
                .map(|&(t, n)| (t, n, format!("{t:.1} s: {n:.0} waiting")))
                .collect()
        })
        .collect();
    let title = format!("coalesce: requests waiting in the server, {overload}");
    ChartSpec::Drawn(Chart {
        stem: "coalesce-waiting-overload".into(),
        svg: line_chart(
            &title,
            ("seconds since the window opened", Scale::Linear),
            ("requests waiting (queued or generating)", Scale::Linear),
            &LAB.implementations(),
            &labelled,
        ),
        title,
    })
}

/// The same as a table: a row per design, a column per slot any design reached.
fn waiting_table(set: &ResultSet) -> Block {
    let (_, lines) = waiting_over_time(set);
    let slots = lines.iter().map(Vec::len).max().unwrap_or(0);
    let mut table = Table::new().column("Design", Align::Left);
    for k in 0..slots {
        table = table.column(&format!("{:.1} s", slot_seconds(k)), Align::Right);
    }
    for (design, line) in LAB.implementations().iter().zip(&lines) {
        let mut cells = vec![format!("`{design}`")];
        cells.extend((0..slots).map(|k| {
            line.get(k)
                .map_or("ended".into(), |(_, n)| format_number(*n))
        }));
        table.row(cells);
    }
    Block::Markdown(table.render())
}

labkit::report_files! {
    target_specs: Targets = "targets.json",
    answers: Answers = "answers.json",
}

fn same(measured: &str) -> String {
    measured.to_owned()
}

fn generator_name(experiment: &str) -> &'static str {
    if experiment == SCRAPE_BY_OHA {
        "oha"
    } else {
        "the lab's generator"
    }
}

/// The scenarios as rows of `experiment` (a derived one, or the scrapes).
fn rows(experiment: &str, cores: usize) -> Vec<Row> {
    Row::all_derived(measured_experiment(experiment), cores, experiment)
}

impl LabReport for CoalesceLab {
    fn report(&self, set: &ResultSet) -> Document {
        let cores = set.environment.cores;
        // Each cross-checked scenario twice, the lab's generator's row above oha's.
        let cross_check = |metric: Metric, derived: fn(&str) -> String| {
            let pairs = CROSS_CHECKED.iter().flat_map(|parameter| {
                [SCRAPE, SCRAPE_BY_OHA].map(|measured| {
                    let experiment = derived(measured);
                    let row = rows(&experiment, cores)
                        .into_iter()
                        .find(|r| r.parameter == *parameter)
                        .expect("cross-checked scenarios are scenarios");
                    Row {
                        label: format!("{} — {}", row.label, generator_name(measured)),
                        ..row
                    }
                })
            });
            Block::Table(metric, pairs.collect())
        };
        // The main page lists the targets missed; the details, every one.
        let targets = target_specs();
        let checked = labkit::targets::check(set, &targets, target_experiments);
        let scrape = rows(SCRAPE, cores);
        let mut charts = vec![
            ChartSpec::bars(
                "coalesce-goodput",
                "coalesce: requests served per second, by scenario",
                Metric::EventsPerSec(SERVED),
                scrape.clone(),
            ),
            ChartSpec::bars(
                "coalesce-peak-heap",
                "coalesce: peak live heap above the pre-run level, by scenario",
                Metric::PeakHeapBytes,
                scrape.clone(),
            ),
        ];
        charts.extend(memory_against_users());
        charts.push(waiting_chart(set));
        charts.extend(scrape.iter().map(|row| {
            let p = &row.parameter;
            let title = format!("coalesce: latency percentiles, {p}");
            ChartSpec::latency(format!("coalesce-latency-{p}"), title, row.clone())
        }));
        Document {
            trust: Some(Block::Markdown(format!(
                "{}\n{}",
                include_str!("../report/conformance.md"),
                crate::conformance::table(set).render()
            ))),
            answers: Some(answers()),
            main: Page::new(include_str!("../report/report.md")).blocks(vec![
                ("waiting", waiting_table(set)),
                (
                    "seed",
                    Block::Markdown(include_str!("../report/seed.md").into()),
                ),
                ("targets_source", Block::Markdown(targets.source.clone())),
                (
                    "targets",
                    Block::TargetMisses {
                        checked: checked.clone(),
                        measured: "measured".into(),
                    },
                ),
                ("targets_notes", Block::Measured(TARGETS_NOTES.into())),
            ]),
            details: Page::new(include_str!("../report/details.md")).blocks(vec![
                (
                    "targets_all",
                    Block::Targets {
                        checked,
                        measured: "measured".into(),
                    },
                ),
                (
                    "cross_goodput",
                    cross_check(Metric::EventsPerSec(SERVED), same),
                ),
                ("cross_p50", cross_check(Metric::LatencyP50Ns, same)),
                ("cross_p99", cross_check(Metric::LatencyP99Ns, same)),
                ("cross_client_cpu", cross_check(Metric::MeanNs, client_cpu)),
                ("cross_client_busy", cross_check(Metric::Ratio, client_busy)),
                ("cross_server_cpu", cross_check(Metric::MeanNs, server_cpu)),
                ("cross_server_busy", cross_check(Metric::Ratio, server_busy)),
                (
                    "cross_server_system_cpu",
                    cross_check(Metric::MeanNs, server_system_cpu),
                ),
            ]),
            charts,
            settings: settings::settings(),
            groups: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::testing::result_set;

    #[test]
    fn the_reference_files_name_the_lab_s_own_designs_and_cases() {
        labkit::testing::targets_name_the_lab_s_own(&LAB, &target_specs(), target_experiments);
    }

    #[test]
    fn the_whole_report_renders_from_an_empty_set() {
        let rendered = labkit::document::render(&LAB, &result_set(&LAB, vec![])).unwrap();
        assert!(rendered.main.contains("## Answers"));
        assert!(rendered.main.contains("## Targets"));
        assert!(rendered.main.contains("closed-100vu-1mib-dominant"));
        assert!(rendered.main.contains("### This lab's checks of its run"));
        assert!(
            rendered
                .details
                .contains("## Latency percentiles of served requests")
        );
        // Goodput, peak heap, memory against users (heap, RSS), requests waiting in the
        // overload, one latency chart per scenario.
        let scenarios = LAB.experiments()[0].parameters.len();
        assert_eq!(rendered.charts.len(), 5 + scenarios);
    }
}
