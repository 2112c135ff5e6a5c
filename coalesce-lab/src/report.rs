//! coalesce-lab's report: its targets, its answers to the write-up, and what its two pages hold
//! (tables of the measured records and of those [`crate::derive`] derives from them, charts).

use labkit::answers::Answers;
use labkit::chart::Scale;
use labkit::document::{Block, ChartSpec, Document, LabReport, Page, target_section};
use labkit::record::{Metric, ResultSet};
use labkit::report::{Lines, Point};
use labkit::targets::Targets;

use crate::derive::waiting;
use crate::implementations::bounded_pool::{QUEUE, THREADS};
use crate::lab::{CoalesceLab, HEADLINE, LAB};
use crate::load::LAG_EDGES;
use crate::names::{SCRAPE, SERVED};
use crate::waiting::{SLOT, SLOTS, slot_seconds};
use crate::workload::{BODIES, CAP, CLOSED, GZIP, OPEN_DEADLINE, OPEN_PERCENTS, OVERLOAD};
use crate::workload::{Cost, PATIENT, Shape, scenarios};

labkit::report_files! {
    target_specs: Targets = "targets.json",
    answers: Answers = "answers.json",
}

/// Peak heap and peak RSS against users: one line per design over the closed loops of the small
/// body with cheap generation, on log scales.
fn memory_against_users() -> [ChartSpec; 2] {
    let closed: Vec<Point> = scenarios()
        .into_iter()
        .filter(|s| s.body == BODIES[0] && s.cost == Cost::Cheap && s.timeout == PATIENT)
        .filter(|s| !s.gzip && !s.overload)
        .filter_map(|s| match s.shape {
            Shape::Closed { users } => Some((users, s.name())),
            Shape::Open { .. } => None,
        })
        .map(|(users, name)| Point::new(users as f64, SCRAPE, &name, format!("{users} users")))
        .collect();
    let chart = |metric: Metric, stem: &str, what: &str| {
        let title = format!("coalesce: {what} against users, 1 MiB bodies");
        let stem = format!("coalesce-{stem}-vs-users");
        let lines = Lines::new(stem, title, metric, closed.clone());
        let lines = lines.axes("users (closed loop)", "MiB", Scale::Log);
        ChartSpec::Lines(lines.unit("MiB", f64::from(1 << 20), 1))
    };
    let heap = "peak live heap above the pre-run level";
    let rss = "peak resident set of the process";
    [
        chart(Metric::PeakHeapBytes, "peak-heap", heap),
        chart(Metric::PeakRssBytes, "peak-rss", rss),
    ]
}

/// The queue-growth chart (its table on the main page): requests waiting in the server over the
/// overload's window, one line per design, the mean backlog at each slot some sample reached
/// ([`crate::waiting`]).
fn waiting_chart() -> ChartSpec {
    let overload = scenarios().into_iter().find(|s| s.overload);
    let overload = overload.map_or_else(String::new, |s| s.name());
    let point = |k: usize| {
        let x = slot_seconds(k);
        Point::new(x, &waiting(k), &overload, format!("{x:.1} s"))
    };
    let title = format!("coalesce: requests waiting in the server, {overload}");
    let points = (0..SLOTS).map(point).collect();
    let lines = Lines::new("coalesce-waiting-overload", title, Metric::Ratio, points);
    let y_axis = "requests waiting (queued or generating)";
    let lines = lines.axes("seconds since the window opened", y_axis, Scale::Linear);
    ChartSpec::Lines(lines.unit("waiting", 1.0, 0))
}

/// Every `{{ name }}` the coalesce pages may print besides the kit's: the workload's settings,
/// read from the code that ran them so that no template types a number.
fn settings() -> Vec<(&'static str, String)> {
    let [small, large] = BODIES.map(|body| format!("{} MiB", body.bytes >> 20));
    let largest = |body: usize| {
        let users = CLOSED
            .iter()
            .filter(|(_, b, _)| b.bytes == BODIES[body].bytes);
        users.map(|(users, _, _)| *users).max().unwrap_or(0)
    };
    let percents: Vec<String> = OPEN_PERCENTS.iter().map(|p| format!("{p} %")).collect();
    let (last, first) = percents.split_last().expect("the open loops have rates");
    let headline: Vec<String> = HEADLINE.iter().map(|p| format!("{SCRAPE}:{p}")).collect();
    labkit::settings![
        cap = CAP,
        small_body = small,
        large_body = large,
        largest_small_users = largest(0),
        largest_large_users = largest(1),
        pool_threads = THREADS,
        pool_queue = QUEUE,
        overload_users = OVERLOAD.0,
        overload_deadline = OVERLOAD.1,
        gzip_deadline = GZIP.1,
        slot = SLOT,
        open_percents = format!("{} and {last}", first.join(", ")),
        open_top = last,
        open_deadline = OPEN_DEADLINE,
        lag_0 = LAG_EDGES[0],
        lag_1 = LAG_EDGES[1],
        lag_2 = LAG_EDGES[2],
        oha_version = format!("version {}", crate::oha::tool().version),
        // The main page's rows, as a table's selector ([`labkit::rows`]).
        headline = headline.join(" + "),
    ]
}

impl LabReport for CoalesceLab {
    fn answers(&self) -> Option<Answers> {
        Some(answers())
    }

    fn report(&self, set: &ResultSet) -> Document {
        let cores = set.environment.cores;
        let scrape = labkit::rows::select(&LAB, SCRAPE, cores).expect("the lab's own rows");
        let bars = |metric: Metric, stem: &str, what: &str| {
            let title = format!("coalesce: {what}, by scenario");
            ChartSpec::bars(format!("coalesce-{stem}"), title, metric, scrape.clone())
        };
        let served = "requests served per second";
        let heap = "peak live heap above the pre-run level";
        let mut charts = vec![
            bars(Metric::EventsPerSec(SERVED), "goodput", served),
            bars(Metric::PeakHeapBytes, "peak-heap", heap),
        ];
        charts.extend(memory_against_users());
        charts.push(waiting_chart());
        charts.extend(scrape.iter().map(|row| {
            let p = &row.parameter;
            let title = format!("coalesce: latency percentiles, {p}");
            ChartSpec::latency(format!("coalesce-latency-{p}"), title, row.clone())
        }));
        let conformance = include_str!("../report/conformance.md");
        let trust = format!("{conformance}\n{}", crate::conformance::table(set).render());
        let published = Block::Markdown(include_str!("../report/published.md").into());
        Document {
            trust: Some(Block::Markdown(trust)),
            main: Page::new(include_str!("../report/report.md")).with("published", published),
            details: Page::new(include_str!("../report/details.md")),
            // The main page lists the targets missed, with the reasons below; the details, every one.
            targets: vec![
                target_section(self, "targets", set, &target_specs())
                    .with_notes(include_str!("../report/targets-notes.md")),
            ],
            charts,
            settings: settings(),
            groups: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::fixture::result_set;
    use labkit::lab::Describe;

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

    #[test]
    fn every_setting_is_a_short_phrase_with_its_unit() {
        let settings = settings();
        let get = |name: &str| {
            settings
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        assert_eq!(get("open_percents"), "50 %, 100 % and 200 %");
        assert_eq!(get("lag_0"), "0.1 ms");
        assert_eq!(get("cap"), "20 s");
        assert_eq!(get("large_body"), "16 MiB");
        assert_eq!(get("overload_deadline"), "100 ms");
    }
}
