//! A censored percentile, from a pass's latencies to the page's cell.

use labkit_report::fixture::{TINY, result_set};
use labkit_report::latency::LatencySink;
use labkit_report::record::{BenchId, Metric, combine_passes, latency_records};
use labkit_report::report::absent_cell;

#[test]
fn a_censored_percentile_is_left_out_and_its_cell_says_censored() {
    let id = BenchId::new("scrape", "i", "p");
    let pass = |censored: u64| {
        let sink = LatencySink::new();
        {
            let mut recorder = sink.recorder();
            for _ in 0..100 - censored {
                recorder.record(std::time::Duration::from_millis(1));
            }
            for _ in 0..censored {
                recorder.record_censored(std::time::Duration::from_millis(500));
            }
        }
        latency_records(&id, &sink.latencies())
    };
    // 3 of 200 latencies are lower bounds: p99 and the maximum may be among them, p90 not.
    let combined = combine_passes(&[pass(0), pass(3)]);
    let has = |m: Metric| combined.iter().any(|r| r.metric == m);
    assert!(has(Metric::LatencyP90Ns) && has(Metric::LatencyHistogram));
    assert!(!has(Metric::LatencyP99Ns) && !has(Metric::LatencyMaxNs));
    let set = result_set(&TINY, combined);
    let cell = absent_cell(&set, &id, Metric::LatencyP99Ns);
    assert_eq!(cell, "censored (1.50 % lower bounds)");
    assert_eq!(
        absent_cell(&set, &id, Metric::LatencyP50Ns),
        "—",
        "an absent uncensored value is a dash"
    );
}
