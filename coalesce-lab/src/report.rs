//! coalesce-lab's report: the records it derives from the measured ones (a generation's own
//! time, the p99 counted in generations, the peak heap counted in bodies), its targets, its
//! answers to the write-up, and what its two pages hold.

use labkit::answers::Answers;
use labkit::document::{Block, ChartSpec, Document, LabReport, Page, target_blocks};
use labkit::lab::Describe;
use labkit::record::{Metric, Record, ResultSet};
use labkit::report::Row;
use labkit::targets::Targets;

use crate::lab::{
    BACKLOG, BODY_MIB, CoalesceLab, GENERATING_US, GENERATIONS, LAB, REFUSED, SCRAPE, SERVED,
    TIMEOUTS, WASTED,
};
use crate::workload::Scenario;

/// What the targets table says below its rows: the reasons for misses, with this run's values.
const TARGETS_NOTES: &str = include_str!("../report/targets-notes.md");

/// Derived: the mean time of one generation in a run, per pass.
pub const GENERATION: &str = "generation";
/// Derived: the p99 latency over one generation's time, in the same run.
pub const P99_IN_GENERATIONS: &str = "p99-in-generations";
/// Derived: the peak live heap over the scenario's body size.
pub const PEAK_HEAP_IN_BODIES: &str = "peak-heap-in-bodies";

/// The records derived from measured ones, for every design and scenario that has their inputs.
pub fn derived(set: &ResultSet) -> Vec<Record> {
    let mut out = Vec::new();
    for r in set.records.iter().filter(|r| r.id.experiment == SCRAPE) {
        let find = |metric: Metric| set.find(&r.id, metric).map(|r| r.value);
        let derive = |experiment: &str, metric: Metric, value: f64| {
            let id = r.id.with_case(experiment, &r.id.parameter);
            Record::new(id, metric, value)
        };
        let generations_record = set.find(&r.id, Metric::EventsPer100Ops(GENERATIONS));
        match r.metric {
            Metric::EventsPer100Ops(GENERATING_US) => {
                let Some(generations) = generations_record.filter(|g| g.value > 0.0) else {
                    continue;
                };
                // Per pass when both have passes, so the time compares pass by pass.
                let ns_per_generation = |us: f64, g: f64| us / g * 1_000.0;
                let record = match (&r.passes, &generations.passes) {
                    (Some(us), Some(g)) if us.len() == g.len() && g.iter().all(|g| *g > 0.0) => {
                        let id = r.id.with_case(GENERATION, &r.id.parameter);
                        let passes = us.iter().zip(g).map(|(u, g)| ns_per_generation(*u, *g));
                        Record::from_passes(id, Metric::MeanNs, passes.collect())
                    }
                    _ => derive(
                        GENERATION,
                        Metric::MeanNs,
                        ns_per_generation(r.value, generations.value),
                    ),
                };
                if let Some(p99) = find(Metric::LatencyP99Ns) {
                    out.push(derive(
                        P99_IN_GENERATIONS,
                        Metric::Ratio,
                        p99 / record.value,
                    ));
                }
                out.push(record);
            }
            Metric::PeakHeapBytes => {
                if let Ok(scenario) = Scenario::parse(&r.id.parameter) {
                    let bodies = r.value / scenario.body.bytes as f64;
                    out.push(derive(PEAK_HEAP_IN_BODIES, Metric::Ratio, bodies));
                }
            }
            _ => {}
        }
    }
    out
}

pub fn target_specs() -> Targets {
    Targets::parse(include_str!("../report/targets.json")).expect("the targets file parses")
}

pub fn answers() -> Answers {
    Answers::parse(include_str!("../report/answers.json")).expect("the answers file parses")
}

/// The experiments a target's `experiment` stands for: the scrapes, or one derived from them
/// (with the scenarios as its parameters).
pub fn target_experiments(name: &str) -> Vec<(String, Vec<String>)> {
    let known = [SCRAPE, GENERATION, P99_IN_GENERATIONS, PEAK_HEAP_IN_BODIES];
    if !known.contains(&name) {
        return Vec::new();
    }
    let parameters = LAB.experiments()[0]
        .parameters
        .iter()
        .map(|p| p.name.clone())
        .collect();
    vec![(name.to_owned(), parameters)]
}

/// The scenarios as rows of `experiment` (a derived one, or the scrapes).
fn rows(experiment: &str, cores: usize) -> Vec<Row> {
    Row::all_derived(&LAB.experiments()[0], cores, experiment)
}

impl LabReport for CoalesceLab {
    fn report(&self, set: &ResultSet) -> Document {
        let cores = set.environment.cores;
        let scrape = rows(SCRAPE, cores);
        let table = |metric: Metric| Block::Table(metric, scrape.clone());
        let derived =
            |experiment: &str, metric: Metric| Block::Table(metric, rows(experiment, cores));
        let targets = target_specs();
        let targets_blocks = target_blocks(set, &targets, target_experiments, TARGETS_NOTES);
        let mut charts = vec![
            ChartSpec::Metric {
                stem: "coalesce-goodput".into(),
                title: "coalesce: requests served per second, by scenario".into(),
                metric: Metric::EventsPerSec(SERVED),
                rows: scrape.clone(),
            },
            ChartSpec::Metric {
                stem: "coalesce-peak-heap".into(),
                title: "coalesce: peak live heap above the pre-run level, by scenario".into(),
                metric: Metric::PeakHeapBytes,
                rows: scrape.clone(),
            },
        ];
        charts.extend(scrape.iter().map(|row| ChartSpec::Latency {
            stem: format!("coalesce-latency-{}", row.parameter),
            title: format!("coalesce: latency percentiles, {}", row.parameter),
            row: row.clone(),
        }));
        Document {
            answers: Some(answers()),
            main: Page::new(include_str!("../report/report.md"))
                .blocks(vec![
                    ("goodput", table(Metric::EventsPerSec(SERVED))),
                    ("p99", table(Metric::LatencyP99Ns)),
                    (
                        "p99_in_generations",
                        derived(P99_IN_GENERATIONS, Metric::Ratio),
                    ),
                    ("generations", table(Metric::EventsPer100Ops(GENERATIONS))),
                    ("wasted", table(Metric::EventsPer100Ops(WASTED))),
                    (
                        "peak_heap_in_bodies",
                        derived(PEAK_HEAP_IN_BODIES, Metric::Ratio),
                    ),
                    (
                        "seed",
                        Block::Markdown(include_str!("../report/seed.md").into()),
                    ),
                ])
                .blocks(targets_blocks),
            details: Page::new(include_str!("../report/details.md")).blocks(vec![
                ("throughput", table(Metric::OpsPerSec)),
                ("generation", derived(GENERATION, Metric::MeanNs)),
                ("backlog", table(Metric::EventsPer100Ops(BACKLOG))),
                ("bandwidth", table(Metric::EventsPerSec(BODY_MIB))),
                (
                    "latency",
                    Block::Latencies {
                        operation: "served request".into(),
                        rows: scrape.clone(),
                    },
                ),
                ("p50", table(Metric::LatencyP50Ns)),
                ("timeouts", table(Metric::EventsPer100Ops(TIMEOUTS))),
                ("refused", table(Metric::EventsPer100Ops(REFUSED))),
                ("peak_heap", table(Metric::PeakHeapBytes)),
                ("peak_rss", table(Metric::PeakRssBytes)),
                ("cpu", table(Metric::CpuNsPerOp)),
                ("allocs", table(Metric::AllocsPerOp)),
                ("bytes", table(Metric::BytesPerOp)),
                ("large_allocs", table(Metric::LargeAllocsPerOp)),
            ]),
            charts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::record::BenchId;
    use labkit::testing::result_set;

    fn scrape(implementation: &str, parameter: &str, metric: Metric, value: f64) -> Record {
        Record::new(
            BenchId::new(SCRAPE, implementation, parameter),
            metric,
            value,
        )
    }

    #[test]
    fn derived_records_count_generations_and_bodies() {
        let scenario = "closed-100vu-16mib";
        let s = result_set(
            &LAB,
            vec![
                scrape(
                    "coalescing",
                    scenario,
                    Metric::EventsPer100Ops(GENERATIONS),
                    4.0,
                ),
                // 4 generations per 100 requests taking 120,000 µs: 30 ms each.
                scrape(
                    "coalescing",
                    scenario,
                    Metric::EventsPer100Ops(GENERATING_US),
                    120_000.0,
                ),
                scrape("coalescing", scenario, Metric::LatencyP99Ns, 45e6),
                scrape(
                    "coalescing",
                    scenario,
                    Metric::PeakHeapBytes,
                    48.0 * 1024.0 * 1024.0,
                ),
            ],
        );
        let values: Vec<(String, f64)> = derived(&s)
            .into_iter()
            .map(|r| (r.id.to_string(), r.value))
            .collect();
        let find = |experiment: &str| {
            values
                .iter()
                .find(|(id, _)| id.starts_with(experiment))
                .unwrap()
                .1
        };
        assert_eq!(find("generation/"), 30e6);
        assert_eq!(find(P99_IN_GENERATIONS), 1.5);
        assert_eq!(find(PEAK_HEAP_IN_BODIES), 3.0);
    }

    #[test]
    fn the_reference_files_name_the_lab_s_own_designs_and_cases() {
        labkit::testing::targets_name_the_lab_s_own(&LAB, &target_specs(), target_experiments);
    }

    #[test]
    fn the_whole_report_renders_from_an_empty_set() {
        let rendered = labkit::document::render(&LAB, &result_set(&LAB, vec![])).unwrap();
        assert!(rendered.main.contains("## Answers"));
        assert!(rendered.main.contains("## Targets"));
        assert!(rendered.main.contains("closed-100vu-16mib"));
        assert!(
            rendered
                .details
                .contains("## Latency percentiles of served requests")
        );
        // Goodput, peak heap, and one latency chart per scenario.
        let scenarios = LAB.experiments()[0].parameters.len();
        assert_eq!(rendered.charts.len(), 2 + scenarios);
    }
}
