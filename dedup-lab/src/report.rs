//! dedup-lab's report: where counted instructions go, its targets, its answers to PR #26763's
//! table, its charts and the workloads' settings its pages (`report/*.md`) name.

use labkit::answers::Answers;
use labkit::document::{ChartSpec, Document, LabReport, Page, target_section};
use labkit::record::{Metric, ResultSet};
use labkit::rows::select;
use labkit::table::format_count;
use labkit::targets::Targets;

use crate::lab::{ADMISSION, BESIDE_INACTIVE, CHURN, DedupLab, LAB, PURGE_SWEEP};

labkit::report_files! {
    answers: Answers = "answers.json",
    target_specs: Targets = "targets.json",
}

/// The churn and purge workloads' settings the prose names.
fn settings() -> Vec<(&'static str, String)> {
    use crate::churn::{CHURN_EVERY, INACTIVE, KEPT_INACTIVE, LIVE_PER_PUBLISHER};
    labkit::settings![
        churn_every = format_count(CHURN_EVERY),
        kept_inactive = format_count(KEPT_INACTIVE),
        live_per_publisher = format_count(LIVE_PER_PUBLISHER as u64),
        inactive = format_count(INACTIVE as u64),
    ]
}

impl LabReport for DedupLab {
    fn answers(&self) -> Option<Answers> {
        Some(answers())
    }

    fn report(&self, set: &ResultSet) -> Document {
        let cores = set.environment.cores;
        let all = |selector: &str| select(&LAB, selector, cores).expect("the lab's own rows");
        let admission = all(ADMISSION);
        let churn = all(CHURN);
        let purge = all(&format!("{BESIDE_INACTIVE} + {PURGE_SWEEP}"));
        let targets = target_specs();
        let title = "dedup: time per admission by thread shape (ns/op, median)";
        let mut charts = vec![ChartSpec::bars(
            "dedup-admission-ns",
            title,
            Metric::NsPerOp,
            admission,
        )];
        charts.extend(churn.iter().chain(&purge).map(|row| {
            let (e, p) = (&row.experiment, &row.parameter);
            let title = format!("dedup: {e} · {p}, admission latency percentiles");
            ChartSpec::latency(format!("dedup-{e}-{p}-latency"), title, row.clone())
        }));
        Document {
            main: Page::new(include_str!("../report/report.md")),
            details: Page::new(include_str!("../report/details.md")),
            targets: vec![
                // The notes below the table: the reasons for misses, with this run's values.
                target_section(self, "targets", set, &targets)
                    .with_notes(include_str!("../report/targets-notes.md")),
            ],
            charts,
            settings: settings(),
            ..Document::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::{CHURN_PUBLISHERS, FOOTPRINT, INACTIVE_PARAMETER};
    use labkit::fixture::result_set;
    use labkit::lab::Lab;
    use labkit::record::{BenchId, Record};

    #[test]
    fn the_report_renders_from_an_empty_set() {
        let rendered = labkit::document::render(&LAB, &result_set(&LAB, vec![])).unwrap();
        let (main, details) = (&rendered.main, &rendered.details);
        assert!(main.contains("## Answers"));
        assert!(main.contains("## Time per admission"));
        assert!(main.contains("oversubscribed: 16 threads"));
        assert!(details.contains("## Under producer churn"));
        assert!(details.contains("`2-publishers`: 2 publishing threads, 250 producers"));
        assert!(details.contains("oversubscribed: 3 threads"));
        // The admission chart, and one latency chart per churn and purge row.
        assert_eq!(rendered.charts.len(), 1 + CHURN_PUBLISHERS.len() + 2);
    }

    #[test]
    fn derived_records_divide_by_the_producers_kept_and_subtract_the_reference_tail() {
        let record = |experiment: &str, parameter: &str, metric: Metric, value: f64| {
            Record::new(
                BenchId::new(experiment, "atomic-slot", parameter),
                metric,
                value,
            )
        };
        let s = result_set(
            &LAB,
            vec![
                record(
                    FOOTPRINT,
                    "1000000-producers-purged-to-10000",
                    Metric::RetainedBytes,
                    1e6,
                ),
                record(
                    BESIDE_INACTIVE,
                    INACTIVE_PARAMETER,
                    Metric::LatencyP999Ns,
                    900.0,
                ),
                record(
                    PURGE_SWEEP,
                    INACTIVE_PARAMETER,
                    Metric::LatencyP999Ns,
                    2_400.0,
                ),
            ],
        );
        let values: Vec<(String, f64)> = LAB
            .derived(&s)
            .into_iter()
            .map(|r| (r.id.to_string(), r.value))
            .collect();
        assert_eq!(
            values,
            [
                (
                    "footprint-per-producer/atomic-slot/1000000-producers-purged-to-10000".into(),
                    100.0
                ),
                ("purge-added-tail/atomic-slot/100k-inactive".into(), 1_500.0),
            ]
        );
    }
}
