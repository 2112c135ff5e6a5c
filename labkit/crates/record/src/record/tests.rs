//! Tests of [`super`].

use super::*;

#[test]
fn a_combined_record_goes_pass_by_pass_where_it_can_and_is_none_where_nothing_is_finite() {
    let id = |e: &str| BenchId::new(e, "a", "p");
    let with = |value: f64, passes: Option<Vec<f64>>| Record {
        passes,
        ..Record::new(id("x"), Metric::NsPerOp, value)
    };
    let over = |a: f64, b: f64| a / b;
    let (a, b) = (
        with(6.0, Some(vec![6.0, 8.0])),
        with(2.0, Some(vec![2.0, 4.0])),
    );
    let r = a.combined(&b, id("r"), Metric::Ratio, over).unwrap();
    assert_eq!(
        (r.passes, r.value, r.id),
        (Some(vec![3.0, 2.0]), 2.5, id("r"))
    );
    // A pass of zero: the summaries instead.
    let zero = with(2.0, Some(vec![0.0, 4.0]));
    let r = a.combined(&zero, id("r"), Metric::Ratio, over).unwrap();
    assert_eq!((r.passes, r.value), (None, 3.0));
    assert!(
        a.combined(&with(0.0, None), id("r"), Metric::Ratio, over)
            .is_none()
    );
}

fn sample_set() -> ResultSet {
    ResultSet {
        lab: "dedup".into(),
        mode: RunMode::Quick,
        environment: Environment::fixed_for_tests(),
        timing: None,
        records: vec![
            Record::new(
                BenchId::new("admission", "topic-mutex", "single"),
                Metric::NsPerOp,
                41.5,
            )
            .with_interval(Interval {
                lower: 40.0,
                upper: 43.0,
                confidence: 0.95,
            }),
            Record::new(
                BenchId::new("footprint", "atomic-slot", "500"),
                Metric::RetainedBytes,
                1e4,
            ),
        ],
        repeats: Vec::new(),
        previous: None,
    }
}

#[test]
fn metric_keys_round_trip() {
    for metric in [
        Metric::NsPerOp,
        Metric::EventsPerSec(EventName::new("served")),
        Metric::InstructionsIn(EventName::new("allocator")),
    ] {
        assert_eq!(Metric::from_key(&metric.key()), Ok(metric));
    }
    assert_eq!(Metric::NsPerOp.key(), "ns-per-op");
    assert_eq!(
        Metric::EventsPer100Ops(EventName::new("served")).key(),
        "events-per100-ops(served)"
    );
    assert!(Metric::from_key("speed").is_err());
}

#[test]
fn bench_id_round_trips_and_rejects_malformed() {
    let id: BenchId = "admission/topic-mutex/shared-2".parse().unwrap();
    assert_eq!(id, BenchId::new("admission", "topic-mutex", "shared-2"));
    assert_eq!(id.to_string(), "admission/topic-mutex/shared-2");
    for bad in ["", "a/b", "a/b/c/d", "a//c"] {
        assert!(bad.parse::<BenchId>().is_err(), "{bad} accepted");
    }
}

#[test]
fn result_set_json_round_trip() {
    let set = sample_set();
    let back = ResultSet::from_json(&set.to_json()).unwrap();
    assert_eq!(back, set);
    assert!(set.to_json().contains("\"admission/topic-mutex/single\""));
    assert!(ResultSet::from_json("{\"lab\": 3}").is_err());
}

#[test]
fn passes_combine_into_one_record_per_cell_with_median_and_interval() {
    let id = BenchId::new("e", "i", "p");
    let pass = |v: f64| {
        vec![
            Record::new(id.clone(), Metric::NsPerOp, v),
            Record::new(id.clone(), Metric::OpsPerSec, 1e9 / v),
        ]
    };
    let passes: Vec<Vec<Record>> = [5.0, 1.0, 4.0, 2.0, 3.0, 6.0].map(pass).to_vec();
    let combined = combine_passes(&passes);
    assert_eq!(combined.len(), 2);
    let ns = &combined[0];
    assert_eq!((ns.metric, ns.value), (Metric::NsPerOp, 3.5));
    assert_eq!(
        ns.passes.as_deref(),
        Some(&[5.0, 1.0, 4.0, 2.0, 3.0, 6.0][..]),
        "pass order kept"
    );
    let ci = ns.interval.unwrap();
    assert_eq!((ci.lower, ci.upper), (1.0, 6.0), "six passes: the extremes");
    let two = combine_passes(&passes[..2]);
    assert_eq!(
        (two[0].value, two[0].interval),
        (3.0, None),
        "no interval from two passes"
    );
    let round_trip: Record = serde_json::from_str(&serde_json::to_string(ns).unwrap()).unwrap();
    assert_eq!(&round_trip, ns);
}

#[test]
fn latency_histograms_merge_across_passes_and_percentiles_follow_the_merge() {
    let id = BenchId::new("e", "i", "p");
    let pass = |micros: u64| {
        let sink = crate::latency::LatencySink::new();
        {
            let mut recorder = sink.recorder();
            for _ in 0..100 {
                recorder.record(std::time::Duration::from_micros(micros));
            }
        }
        latency_records(&id, &sink.latencies())
    };
    let combined = combine_passes(&[pass(10), pass(1000)]);
    let histogram = combined
        .iter()
        .find(|r| r.metric == Metric::LatencyHistogram)
        .unwrap();
    assert_eq!(histogram.value, 200.0);
    assert_eq!(histogram.passes.as_deref(), Some(&[100.0, 100.0][..]));
    let p99 = combined
        .iter()
        .find(|r| r.metric == Metric::LatencyP99Ns)
        .unwrap();
    assert!(
        p99.value > 990_000.0,
        "from the merged histogram: {}",
        p99.value
    );
    assert_eq!(
        p99.passes.as_ref().unwrap().len(),
        2,
        "each pass's own p99 kept"
    );
    let p50 = combined
        .iter()
        .find(|r| r.metric == Metric::LatencyP50Ns)
        .unwrap();
    assert!(p50.value < 10_100.0, "{}", p50.value);
}

#[test]
fn event_names_are_strings_in_json_and_bounded() {
    let metric = Metric::EventsPer100Ops(EventName::new("generations"));
    let json = serde_json::to_string(&metric).unwrap();
    assert_eq!(json, r#"{"events-per100-ops":"generations"}"#);
    assert_eq!(serde_json::from_str::<Metric>(&json).unwrap(), metric);
    assert!(EventName::try_new(&"x".repeat(33)).is_none());
    assert!(
        serde_json::from_str::<Metric>(&format!(r#"{{"events-per100-ops":"{}"}}"#, "x".repeat(40)))
            .is_err()
    );
}

#[test]
fn write_atomic_replaces_whole_file_and_leaves_no_temporaries() {
    let dir = std::env::temp_dir().join(format!("labkit-atomic-{}", std::process::id()));
    let path = dir.join("out.json");
    write_atomic(&path, "first").unwrap();
    write_atomic(&path, "second").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "temporaries left behind: {names:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_compacted_set_keeps_six_significant_digits_of_every_value_and_pass() {
    assert_eq!(rounded(26.433333333333337), 26.4333);
    assert_eq!(rounded(1_234_567_891.0), 1_234_570_000.0);
    assert_eq!(rounded(-0.000_123_456_789), -0.000_123_457);
    assert_eq!((rounded(0.0), rounded(7.0)), (0.0, 7.0));
    assert!(rounded(f64::NAN).is_nan());
    let record = Record::from_passes(
        BenchId::new("x", "a", "p"),
        Metric::NsPerOp,
        vec![1.0 / 3.0, 2.0 / 3.0, 1.0],
    );
    let set = ResultSet {
        records: vec![record],
        ..fixtures::set(Vec::new())
    }
    .compacted();
    let kept = &set.records[0];
    assert_eq!(kept.value, 0.666667);
    assert_eq!(kept.passes, Some(vec![0.333333, 0.666667, 1.0]));
    assert!(set.to_json().contains("0.666667"), "{}", set.to_json());
}
