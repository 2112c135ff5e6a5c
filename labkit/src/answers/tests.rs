//! Tests of [`super`].

use super::*;
use crate::record::fixtures::{count, passes};

fn set(records: Vec<Record>) -> ResultSet {
    crate::record::fixtures::set(records)
}

const FILE: &str = r#"{
  "source": "a PR", "question": "Is new faster?",
  "pairs": [{"old": "java-old", "new": "java-new", "label": "model"},
            {"old": "base", "new": "fast", "label": "native"}],
  "claims": [{
    "claim": "1 thread: new is faster", "published": {"old": 40.0, "new": 30.0, "unit": "ns/op"},
    "metric": "ns-per-op", "experiment": "op", "parameter": "small",
    "causes": [{"pair": 1, "explains": "higher", "text": "fast allocates {{ v('allocs-per-op@fast') }} per op ({{ ratio('ns-per-op@fast', 'ns-per-op@base') }})",
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
        md.contains("13.5 ns → 10.8 ns (−20.0 %, faster in 8 of 8 passes) ✓"),
        "{md}"
    );
    assert!(md.contains("(+100.0 %, slower in 8 of 8 passes) ✗"), "{md}");
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
fn unstable_rows_differ_and_the_aa_spread_is_measurable() {
    let answers = Answers::parse(&FILE.replace(
        r#""pair": 1, "explains": "higher", "text""#,
        r#""pair": 0, "explains": "unstable", "text": "below resolution: write-up {{ v('published-change') }}, A/A {{ v('aa-spread') }}", "evidence": [{"value": "published-change", "over": "aa-spread", "at_most": 1}]}, {"pair": 1, "explains": "higher", "text""#,
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
    assert!(md.contains("unstable") && !md.contains("undecided"), "{md}");
    assert!(
        md.contains("below resolution: write-up 25.0 %, A/A 30.0 %"),
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
        "fast: {{ v('allocs-per-op@op/fast/small') }}, half: {{ ratio('allocs-per-op@op/fast/small', 'allocs-per-op@op/base/small') }}, gone: {{ v('allocs-per-op@op/gone/small') }}",
        &set(records),
        &[],
    );
    assert_eq!(text, "fast: 2.00, half: 0.500×, gone: (not measured)");
    let more = fill_measured(
        "{{ minus('allocs-per-op@op/base/small', 'allocs-per-op@op/fast/small') }} more, {{ per('allocs-per-op@op/base/small', 'allocs-per-op@op/fast/small') }} each",
        &set(vec![
            count("fast", Metric::AllocsPerOp, 2.0),
            count("base", Metric::AllocsPerOp, 4.0),
        ]),
        &[],
    );
    assert_eq!(more, "2.00 more, 2.00 each");
    let little = fill_measured(
        "{{ per(100, 'allocs-per-op@op/base/small') }} s, {{ minus('allocs-per-op@op/base/small', 1) }} for {{ users }}",
        &set(vec![count("base", Metric::AllocsPerOp, 4.0)]),
        &[("users", "100".to_owned())],
    );
    assert_eq!(little, "25.0 s, 3.00 for 100", "a number stands for itself");
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
        "{{ ratio('ns-per-op@op/fast/small', 'ns-per-op@op/base/small') }}",
        &set(vec![
            timed("base", &[10.0, 20.0, 30.0, 5.0]),
            timed("fast", &[5.0, 10.0, 15.0, 10.0]),
        ]),
        &[],
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

const JVM_FILE: &str = r#"{
  "source": "a Java PR", "question": "Is new faster?",
  "jvm": {"old": "jvm-old", "new": "jvm-new",
          "models": [{"model": "rust-old", "original": "jvm-old"}],
          "rust": ["rust-old", "fast"],
          "adds": "`fast` takes {{ v('ns-per-op@op/fast/small') }}.",
          "cannot_show": "This machine has 2 cores.",
          "decision": "The model stays."},
  "claims": [
    {"claim": "new is faster", "published": {"old": 40.0, "new": 30.0, "unit": "ns/op"},
     "metric": "ns-per-op", "experiment": "op", "parameter": "small",
     "causes": [{"explains": "higher", "text": "the old arm's model takes {{ v('ns-per-op@rust-old') }}",
                 "evidence": [{"value": "ns-per-op@rust-old", "at_least": 1}]},
                {"explains": "higher", "text": "new allocates {{ v('allocs-per-op@jvm-new') }}",
                 "evidence": [{"value": "allocs-per-op@jvm-new", "at_least": 1}]}]},
    {"claim": "two threads", "published_text": "not measured by the PR", "expect": "lower", "own": true,
     "metric": "ns-per-op", "experiment": "op", "parameter": "small"},
    {"claim": "a case the lab cannot run", "published": {"old": 1.0, "new": 2.0, "unit": "µs"},
     "metric": "ns-per-op", "experiment": "op", "parameter": "small",
     "unmeasurable": "the benchmark's setup has no such dataset"}
  ]
}"#;

#[test]
fn on_the_jvm_the_write_up_s_own_designs_decide_and_the_rust_ones_are_context() {
    let answers = Answers::parse(JVM_FILE).unwrap();
    let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
    let scaled = |f: f64| -> Vec<f64> { up.iter().map(|v| v * f).collect() };
    let records = vec![
        passes("jvm-old", &up),
        passes("jvm-new", &scaled(0.8)),
        passes("rust-old", &scaled(1.2)),
        passes("fast", &scaled(0.4)),
    ];
    let checked = answers.check(&set(records.clone()));
    assert_eq!(
        checked.outcomes,
        [Outcome::Reproduces, Outcome::NotMeasured],
        "the lab's own question is apart"
    );
    let md = &checked.markdown;
    assert!(md.contains("**1 reproduce**"), "{md}");
    assert!(
        md.contains("13.5 ns → 10.8 ns (−20.0 %, faster in 8 of 8 passes) ✓"),
        "{md}"
    );
    assert!(md.contains("`rust-old` 1.20×"), "{md}");
    // The best Rust design over the JVM's better arm (jvm-new): 0.4 / 0.8.
    assert!(md.contains("`fast` 5.40 ns (0.500×)"), "{md}");
    assert!(md.contains("### The lab's own questions"), "{md}");
    assert!(md.contains("cannot be measured: the benchmark's setup has no such dataset"));
    assert!(md.contains("`rust-old` on 2 of 2 claims"), "{md}");
    let details = &checked.details;
    assert!(
        details.contains("| within the band | 2 of 2 |"),
        "{details}"
    );
    let verdict = verdict_paragraph(&answers, &set(records)).unwrap();
    assert!(
        verdict
            .contains("1 of the write-up's 1 claim reproduces (1 more a data-structure lab cannot"),
        "{verdict}"
    );
    assert!(
        verdict.contains("`fast` takes 5.40. This machine has 2 cores."),
        "{verdict}"
    );
}

#[test]
fn a_jvm_difference_is_explained_only_by_a_cause_of_its_direction_on_a_model_in_band() {
    let answers = Answers::parse(JVM_FILE).unwrap();
    let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
    let scaled = |f: f64| -> Vec<f64> { up.iter().map(|v| v * f).collect() };
    // The JVM's new arm is slower: the write-up's way reversed.
    let mut records = vec![
        passes("jvm-old", &up),
        passes("jvm-new", &scaled(1.5)),
        passes("rust-old", &scaled(1.2)),
        count("jvm-new", Metric::AllocsPerOp, 2.0),
    ];
    let checked = answers.check(&set(records.clone()));
    assert_eq!(checked.outcomes[0], Outcome::Explained);
    assert!(
        checked
            .markdown
            .contains("**differs**: the old arm's model takes"),
        "{}",
        checked.markdown
    );
    // The model three times its original: the cause citing it is refused, the next one holds.
    records[2] = passes("rust-old", &scaled(3.0));
    let checked = answers.check(&set(records.clone()));
    let md = &checked.markdown;
    assert!(md.contains("**differs**: new allocates 2.00"), "{md}");
    assert!(
        md.contains("`rust-old` 3.00× (off: decides nothing)"),
        "{md}"
    );
    assert!(
        checked.details.contains("**3.00× off**"),
        "{}",
        checked.details
    );
    // Without the second cause's evidence nothing explains it, and the refusal says why.
    records.pop();
    let checked = answers.check(&set(records));
    assert_eq!(checked.outcomes[0], Outcome::NotEstablished);
    assert!(
        checked
            .markdown
            .contains("it rests on a model: `rust-old` is off by 3.00× here"),
        "{}",
        checked.markdown
    );
}

#[test]
fn without_a_jdk_the_jvm_cells_say_so_and_nothing_is_decided() {
    let answers = Answers::parse(JVM_FILE).unwrap();
    let mut no_jdk = set(vec![passes("fast", &[1.0; 8])]);
    no_jdk.environment.jvm = Some(Err("no JDK (`java` not found on PATH)".into()));
    let checked = answers.check(&no_jdk);
    assert_eq!(checked.outcomes[0], Outcome::NotMeasured);
    assert!(
        checked
            .markdown
            .contains("not measured: no JDK (`java` not found on PATH)"),
        "{}",
        checked.markdown
    );
    let verdict = verdict_paragraph(&answers, &no_jdk).unwrap();
    assert!(
        verdict.contains("The JVM was not measured in this run"),
        "{verdict}"
    );
    let unexplained = JVM_FILE.replace("\"explains\": \"higher\", ", "");
    assert!(
        Answers::parse(&unexplained)
            .unwrap_err()
            .contains("does not say which direction of the verdict it explains")
    );
}

#[test]
fn without_a_jvm_side_the_verdict_counts_the_claims_and_says_the_machine_s_part_once() {
    assert!(
        verdict_paragraph(&Answers::parse(FILE).unwrap(), &set(vec![])).is_none(),
        "no verdict text, no paragraph"
    );
    let file = FILE.replacen(
        r#""claims": ["#,
        r#""verdict": "The server has one core: base's {{ v('allocs-per-op@op/fast/small') }} per op say so.", "claims": ["#,
        1,
    );
    let answers = Answers::parse(&file).unwrap();
    let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
    let down: Vec<f64> = up.iter().map(|v| v * 0.8).collect();
    let records = vec![
        passes("java-old", &up),
        passes("java-new", &down),
        passes("base", &up),
        passes("fast", &down),
        count("fast", Metric::AllocsPerOp, 1.5),
    ];
    let verdict = verdict_paragraph(&answers, &set(records)).unwrap();
    assert!(
        verdict.starts_with("**Verdict.** Here (")
            && verdict.contains("1 of the write-up's 1 claim reproduces."),
        "{verdict}"
    );
    assert!(verdict.ends_with("base's 1.50 per op say so."), "{verdict}");
}

#[test]
fn a_cause_never_prints_beside_a_verdict_that_went_another_way() {
    let answers = Answers::parse(FILE).unwrap();
    let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
    let down: Vec<f64> = up.iter().map(|v| v * 0.8).collect();
    let with_fast = |fast: &[f64]| {
        answers
            .check(&set(vec![
                passes("java-old", &up),
                passes("java-new", &down),
                passes("base", &up),
                passes("fast", fast),
                count("fast", Metric::AllocsPerOp, 1.5),
            ]))
            .markdown
    };
    // `fast` slower than `base`: the cause, which explains a rise, is shown.
    let twice: Vec<f64> = up.iter().map(|v| v * 2.0).collect();
    assert!(with_fast(&twice).contains("fast allocates 1.50 per op"));
    // The numbers flip to a gain that not every pass shows: the evidence still holds, but the
    // sentence explains a rise, so it is not printed beside this verdict.
    let mostly_faster = [8.0, 8.8, 9.6, 10.4, 11.2, 12.0, 12.8, 18.0];
    let flipped = with_fast(&mostly_faster);
    assert!(flipped.contains("unstable"), "{flipped}");
    assert!(!flipped.contains("fast allocates"), "{flipped}");
    assert!(flipped.contains("cause not established"), "{flipped}");
    // Equal to `base`: no rise either, no cause.
    let same = with_fast(&up);
    assert!(!same.contains("fast allocates"), "{same}");
}

#[test]
fn each_row_says_whether_its_verdict_held_in_the_run_this_one_replaced() {
    let answers = Answers::parse(FILE).unwrap();
    let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
    let down: Vec<f64> = up.iter().map(|v| v * 0.8).collect();
    let twice: Vec<f64> = up.iter().map(|v| v * 2.0).collect();
    let now = vec![
        passes("java-old", &up),
        passes("java-new", &down),
        passes("base", &up),
        passes("fast", &down),
    ];
    let alone = answers.check(&set(now.clone()));
    assert_eq!(alone.travel, [Some(Travel::New)]);
    let mut replaced = set(now.clone());
    replaced.previous = Some(Box::new(set(now.clone())));
    assert_eq!(answers.check(&replaced).travel, [Some(Travel::Held)]);
    // In the last run `fast` was slower: the row says so, and is counted apart; on this CPU it
    // is another verdict, on another CPU another verdict on another CPU.
    let mut other = now.clone();
    other[3] = passes("fast", &twice);
    let file = FILE.replacen(r#""claims": ["#, r#""verdict": "Done.", "claims": ["#, 1);
    let mut says = |previous: ResultSet, row: &str, sentence: &str| {
        replaced.previous = Some(Box::new(previous));
        let checked = answers.check(&replaced);
        assert_eq!(checked.travel, [Some(Travel::Moved)]);
        assert!(checked.markdown.contains(row), "{}", checked.markdown);
        let verdict = verdict_paragraph(&Answers::parse(&file).unwrap(), &replaced).unwrap();
        assert!(verdict.contains(sentence), "{verdict}");
    };
    says(
        set(other.clone()),
        "**another verdict**: faster here, slower in the run of abc1234 on this CPU",
        "Last run (abc1234, this CPU): same verdict on 0, **another on 1**.",
    );
    let mut elsewhere = set(other);
    elsewhere.environment.cpu_model = "Other CPU".into();
    says(
        elsewhere,
        "**another verdict on another CPU**: faster here, slower on the Other CPU run of abc1234",
        "Last run (Other CPU, abc1234): same verdict on 0, **another on 1**.",
    );
}

/// A value measured once compares `same` within the claim's resolution, here and in the run it
/// replaced, so a small difference that flips between runs neither fails the claim nor travels
/// as a verdict that moved; beyond it, the direction stands.
#[test]
fn a_claim_s_resolution_reads_close_single_values_as_the_same_here_and_in_the_last_run() {
    let file = |resolution: &str| {
        format!(
            r#"{{"source": "a PR", "question": "Same memory?",
              "pairs": [{{"old": "base", "new": "fast", "label": "native"}}],
              "claims": [{{"claim": "fast keeps the same heap", "published_text": "one result",
                "expect": "same", "metric": "peak-heap-bytes", "experiment": "op",
                "parameter": "small"{resolution}}}]}}"#
        )
    };
    let heap = |base: f64, fast: f64| {
        vec![
            count("base", Metric::PeakHeapBytes, base),
            count("fast", Metric::PeakHeapBytes, fast),
        ]
    };
    let mut now = set(heap(2930.0, 2890.0));
    now.previous = Some(Box::new(set(heap(2900.0, 2950.0))));
    let loose = Answers::parse(&file(r#", "resolution": 500"#)).unwrap();
    let checked = loose.check(&now);
    assert_eq!(
        checked.outcomes,
        [Outcome::Reproduces],
        "{}",
        checked.markdown
    );
    assert_eq!(checked.travel, [Some(Travel::Held)]);
    let by_value = Answers::parse(&file("")).unwrap().check(&now);
    assert_ne!(by_value.outcomes, [Outcome::Reproduces]);
    assert_eq!(by_value.travel, [Some(Travel::Moved)]);
    let far = set(heap(2930.0, 1930.0));
    assert_ne!(loose.check(&far).outcomes, [Outcome::Reproduces]);
}

#[test]
fn an_effect_far_from_the_published_one_says_so_beside_its_direction() {
    let answers = Answers::parse(JVM_FILE).unwrap();
    let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
    let scaled = |f: f64| -> Vec<f64> { up.iter().map(|v| v * f).collect() };
    // −25 % published; −60 % here: 2.4 times the published effect.
    let far = answers.check(&set(vec![
        passes("jvm-old", &up),
        passes("jvm-new", &scaled(0.4)),
    ]));
    assert!(
        far.markdown
            .contains("**reproduces**: the direction, at 2.40× the published effect"),
        "{}",
        far.markdown
    );
    // −20 % here: within half to double of the published −25 %, nothing added.
    let near = answers.check(&set(vec![
        passes("jvm-old", &up),
        passes("jvm-new", &scaled(0.8)),
    ]));
    assert!(
        near.markdown.contains("| **reproduces** |"),
        "{}",
        near.markdown
    );
}

#[test]
fn on_more_threads_than_cores_a_claim_that_does_not_hold_is_not_comparable() {
    let mut answers = Answers::parse(JVM_FILE).unwrap();
    let benchmarks = |threads: usize| {
        let cell = |design| {
            crate::lab::JmhCell::new(("op", "small"), design, "b.Bench.m").threads(threads)
        };
        crate::lab::JvmBenchmarks {
            cells: vec![cell("jvm-old"), cell("jvm-new")],
            ..crate::fixture::jvm_benchmarks(&["jvm-old", "jvm-new"])
        }
    };
    let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
    let slower: Vec<f64> = up.iter().map(|v| v * 1.5).collect();
    let records = vec![passes("jvm-old", &up), passes("jvm-new", &slower)];
    answers.jvm.as_mut().unwrap().benchmarks = Some(benchmarks(16));
    let checked = answers.check(&set(records.clone()));
    assert_eq!(checked.outcomes[0], Outcome::NotComparable);
    let md = &checked.markdown;
    assert!(
        md.contains("**not comparable on 2 cores**: its 16 threads"),
        "{md}"
    );
    assert!(
        md.contains("`cargo xtask bench tiny jvm-old jvm-new small`"),
        "{md}"
    );
    assert!(md.contains("**1 not comparable on 2 cores**"), "{md}");
    assert!(md.contains("`m` (-t 16) → `m`"), "{md}");
    // On as many threads as cores, the same result differs.
    answers.jvm.as_mut().unwrap().benchmarks = Some(benchmarks(2));
    let checked = answers.check(&set(records));
    assert_eq!(checked.outcomes[0], Outcome::NotEstablished);
}

#[test]
fn a_design_that_refuses_requests_cannot_reproduce_a_claim_about_served_ones() {
    let file = r#"{
      "source": "a PR", "question": "Is new faster?",
      "pairs": [{"old": "base", "new": "fast", "label": "the fix"},
                {"old": "base", "new": "refusing", "label": "a pool of ours"}],
      "failures": {"metrics": ["events-per100-ops(refused)"], "published_percent": 0.0},
      "claims": [{"claim": "p99 is lower", "published_text": "lower", "expect": "lower",
                  "metric": "ns-per-op", "experiment": "op", "parameter": "small", "served": true}]
    }"#;
    let answers = Answers::parse(file).unwrap();
    let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
    let half: Vec<f64> = up.iter().map(|v| v * 0.5).collect();
    let refused = Metric::from_key("events-per100-ops(refused)").unwrap();
    let records = vec![
        passes("base", &up),
        passes("fast", &half),
        passes("refusing", &half),
        count("refusing", refused, 99.7),
        count("fast", refused, 0.0),
    ];
    let checked = answers.check(&set(records));
    let md = &checked.markdown;
    assert!(md.contains("refuses 99.7 %"), "{md}");
    assert!(
        md.contains("**reproduces** with the fix; **refuses 99.7 %** (a pool of ours)"),
        "{md}"
    );
    assert_eq!(checked.outcomes, [Outcome::Explained]);
}
