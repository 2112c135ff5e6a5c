//! Tests of [`super`].

use super::*;
use crate::testing::records::{count, passes};

fn set(records: Vec<Record>) -> ResultSet {
    ResultSet::of(records)
}

const FILE: &str = r#"{
  "source": "a PR", "question": "Is new faster?",
  "pairs": [{"old": "java-old", "new": "java-new", "label": "model"},
            {"old": "base", "new": "fast", "label": "native"}],
  "claims": [{
    "claim": "1 thread: new is faster", "seed": {"old": 40.0, "new": 30.0, "unit": "ns/op"},
    "metric": "ns-per-op", "experiment": "op", "parameter": "small",
    "causes": [{"pair": 1, "text": "fast allocates {allocs-per-op@fast} per op ({ns-per-op@fast / ns-per-op@base})",
                "evidence": [{"value": "allocs-per-op@fast", "at_least": 1}]}]
  }]
}"#;

#[test]
fn a_difference_is_explained_only_while_its_evidence_holds() {
    let answers = Answers::parse(FILE).unwrap();
    assert_eq!(
        answers.implementations(),
        ["java-old", "java-new", "base", "fast"]
    );
    let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
    let down: Vec<f64> = up.iter().map(|v| v * 0.8).collect();
    let twice: Vec<f64> = up.iter().map(|v| v * 2.0).collect();
    let mut records = vec![
        passes("java-old", &up),
        passes("java-new", &down),
        passes("base", &up),
        passes("fast", &twice),
        count("fast", Metric::AllocsPerOp, 1.5),
    ];
    let checked = answers.check(&set(records.clone()));
    assert_eq!(checked.outcomes, [Outcome::Explained]);
    let md = &checked.markdown;
    assert!(md.contains("**reproduces** with model"), "{md}");
    assert!(md.contains("fast allocates 1.50 per op (2.00×)"), "{md}");
    assert!(
        md.contains("13.5 ns → 10.8 ns (−20.0 %, faster 8/8) ✓"),
        "{md}"
    );
    assert!(md.contains("(+100.0 %, slower 8/8) ✗"), "{md}");
    assert!(md.contains("40.0 → 30.0 ns/op (−25.0 %)"), "{md}");

    records[4].value = 0.5;
    let checked = answers.check(&set(records));
    assert_eq!(checked.outcomes, [Outcome::NotEstablished]);
    assert!(
        checked
            .markdown
            .contains("not borne out: allocs-per-op@fast = 0.500, not at least 1"),
        "{}",
        checked.markdown
    );
    let nothing = answers.check(&set(vec![]));
    assert_eq!(nothing.outcomes, [Outcome::NotMeasured]);
}

#[test]
fn undecided_rows_differ_and_the_aa_spread_is_measurable() {
    let answers = Answers::parse(&FILE.replace(
        r#""pair": 1, "text""#,
        r#""pair": 0, "text": "below resolution: seed {seed-change}, A/A {aa-spread}", "evidence": [{"value": "seed-change", "over": "aa-spread", "at_most": 1}]}, {"pair": 1, "text""#,
    ))
    .unwrap();
    let base = [10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0];
    let noisy = [9.0, 11.0, 7.0, 13.0, 10.5, 9.5, 10.0, 10.0];
    let records = vec![
        passes("java-old", &base),
        passes("java-old-again", &noisy),
        passes("java-new", &noisy),
        passes("base", &base),
        passes("fast", &noisy),
    ];
    let checked = answers.check(&set(records));
    let md = &checked.markdown;
    assert!(md.contains("undecided"), "{md}");
    assert!(
        md.contains("below resolution: seed 25.0 %, A/A 30.0 %"),
        "{md}"
    );
    assert_eq!(
        checked.outcomes,
        [Outcome::NotEstablished],
        "pair 1 has no evidence"
    );
}

#[test]
fn prose_cites_measured_values_and_says_what_is_missing() {
    let records = vec![
        count("fast", Metric::AllocsPerOp, 2.0),
        count("base", Metric::AllocsPerOp, 4.0),
    ];
    let text = fill_measured(
        "fast: {allocs-per-op@op/fast/small}, half: {allocs-per-op@op/fast/small / allocs-per-op@op/base/small}, gone: {allocs-per-op@op/gone/small}",
        &set(records),
    );
    assert_eq!(text, "fast: 2.00, half: 0.500×, gone: (not measured)");
    let more = fill_measured(
        "{allocs-per-op@op/base/small - allocs-per-op@op/fast/small} more, {allocs-per-op@op/base/small per allocs-per-op@op/fast/small} each",
        &set(vec![
            count("fast", Metric::AllocsPerOp, 2.0),
            count("base", Metric::AllocsPerOp, 4.0),
        ]),
    );
    assert_eq!(more, "2.00 more, 2.00 each");
    let little = fill_measured(
        "{100 per allocs-per-op@op/base/small} s, {allocs-per-op@op/base/small - 1}",
        &set(vec![count("base", Metric::AllocsPerOp, 4.0)]),
    );
    assert_eq!(little, "25.0 s, 3.00", "a number stands for itself");
    // Timed pass by pass: the median of the per-pass ratios (as the tables and targets give
    // it: 0.5, 0.5, 0.5, 2.0 → 0.5), not the ratio of the medians (10 / 15 = 0.667).
    let timed = |implementation: &str, passes: &[f64]| {
        Record::from_passes(
            BenchId::new("op", implementation, "small"),
            Metric::NsPerOp,
            passes.to_vec(),
        )
    };
    let paired = fill_measured(
        "{ns-per-op@op/fast/small / ns-per-op@op/base/small}",
        &set(vec![
            timed("base", &[10.0, 20.0, 30.0, 5.0]),
            timed("fast", &[5.0, 10.0, 15.0, 10.0]),
        ]),
    );
    assert_eq!(paired, "0.500×");
}

#[test]
fn malformed_files_are_errors() {
    assert!(Answers::parse("{}").is_err());
    let bad_metric = FILE.replace("\"metric\": \"ns-per-op\"", "\"metric\": \"speed\"");
    assert!(Answers::parse(&bad_metric).unwrap_err().contains("`speed`"));
    let bad_pair = FILE.replace("\"pair\": 1", "\"pair\": 7");
    assert!(Answers::parse(&bad_pair).unwrap_err().contains("pair 7"));
    let bad_ref = FILE.replace("allocs-per-op@fast\", \"at_least", "allocs\", \"at_least");
    assert!(Answers::parse(&bad_ref).is_err());
}
