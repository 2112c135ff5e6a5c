//! Tests of [`super`].

use super::*;
use crate::record::fixtures::set;
use crate::record::{Baselines, FLOOR, Interval};

fn timed(implementation: &str, value: f64, half_width: f64) -> Record {
    Record::new(
        BenchId::new("admission", implementation, "single"),
        Metric::NsPerOp,
        value,
    )
    .with_interval(Interval {
        lower: value - half_width,
        upper: value + half_width,
        confidence: 0.95,
    })
}

/// `base` as the only baseline.
fn one_baseline() -> Baselines {
    Baselines::new("base", &[])
}

#[test]
fn comparison_table_puts_baseline_first_and_gives_verdicts() {
    let s = set(vec![
        timed("base", 40.0, 1.0),
        timed("fast", 20.0, 1.0),
        timed("close", 40.8, 1.0),
    ]);
    let rows = [Row::new("admission", "single", "1 thread")];
    let out = comparison_table(
        &s,
        Metric::NsPerOp,
        &rows,
        &["base", "fast", "close", "absent"],
        &one_baseline(),
    )
    .render();
    assert!(
        out.starts_with("| Case | base (baseline) | fast | close | absent |"),
        "{out}"
    );
    assert!(out.contains("40.0 [39.0–41.0]<br>1.00×"), "{out}");
    assert!(
        out.contains("20.0 [19.0–21.0]<br>0.50× −50.0 % faster"),
        "{out}"
    );
    assert!(out.contains("1.02× +2.0 % inconclusive"), "{out}");
    assert!(out.contains("| — |"), "{out}");
}

#[test]
fn jvm_designs_are_compared_with_the_jvm_baseline_and_never_net_of_the_rust_floor() {
    let s = set(vec![
        timed("base", 40.0, 1.0),
        timed(FLOOR, 10.0, 0.5),
        timed("jvm-old", 100.0, 1.0),
        timed("jvm-new", 50.0, 1.0),
    ]);
    let rows = [Row::new("admission", "single", "1 thread")];
    let implementations = ["base", FLOOR, "jvm-old", "jvm-new"];
    let baselines = Baselines::new("base", &implementations[2..]);
    let out = comparison_table(&s, Metric::NsPerOp, &rows, &implementations, &baselines).render();
    assert!(
        out.starts_with("| Case | base (baseline) | harness-floor (no work; not compared) | jvm-old (JVM baseline) | jvm-new |"),
        "{out}"
    );
    assert!(out.contains("100.0 [99.0–101.0]<br>1.00× |"), "{out}");
    assert!(out.contains("0.50× −50.0 % faster |"), "{out}");
}

#[test]
fn the_harness_floor_is_a_column_without_a_verdict_and_costs_show_net_of_it() {
    let s = set(vec![
        timed("base", 40.0, 1.0),
        timed("fast", 20.0, 1.0),
        timed(FLOOR, 5.0, 0.5),
    ]);
    let rows = [Row::new("admission", "single", "1 thread")];
    let out = comparison_table(
        &s,
        Metric::NsPerOp,
        &rows,
        &["base", "fast", FLOOR],
        &one_baseline(),
    )
    .render();
    assert!(
        out.starts_with(
            "| Case | base (baseline) | fast | harness-floor (no work; not compared) |"
        ),
        "{out}"
    );
    assert!(
        out.contains("40.0 [39.0–41.0]<br>1.00×<br>net 35.0"),
        "{out}"
    );
    assert!(out.contains("−50.0 % faster<br>net 15.0"), "{out}");
    assert!(out.ends_with("| 5.00 [4.50–5.50] |\n"), "{out}");
    let s = set(vec![timed("base", 40.0, 1.0), timed(FLOOR, 41.0, 0.5)]);
    let out = comparison_table(
        &s,
        Metric::NsPerOp,
        &rows,
        &["base", FLOOR],
        &one_baseline(),
    )
    .render();
    assert!(out.contains("1.00×<br>net: below the floor |"), "{out}");
    // Counts that do not add up per operation (footprints) get no net figure.
    let bytes = |implementation: &str, value: f64| {
        Record::new(
            BenchId::new("admission", implementation, "single"),
            Metric::RetainedBytes,
            value,
        )
    };
    let s = set(vec![bytes("base", 4096.0), bytes(FLOOR, 0.0)]);
    let out = comparison_table(
        &s,
        Metric::RetainedBytes,
        &rows,
        &["base", FLOOR],
        &one_baseline(),
    )
    .render();
    assert!(!out.contains("net"), "{out}");
}

#[test]
fn per_pass_cells_show_agreement_and_the_twin_sits_next_to_the_baseline() {
    let passes = |cell: &str, values: &[f64]| {
        Record::from_passes(
            BenchId::spelled("admission", cell, "single"),
            Metric::NsPerOp,
            values.to_vec(),
        )
    };
    let s = set(vec![
        passes("base", &[10.0, 11.0, 12.0, 13.0, 14.0, 15.0]),
        passes("base-again", &[10.5, 10.5, 12.5, 12.5, 14.5, 14.5]),
        passes("fast", &[5.0, 5.5, 6.0, 6.5, 7.0, 7.5]),
    ]);
    let rows = [Row::new("admission", "single", "1 thread")];
    let out = comparison_table(
        &s,
        Metric::NsPerOp,
        &rows,
        &["base", "fast"],
        &one_baseline(),
    )
    .render();
    assert!(
        out.starts_with(
            "| Case | base (baseline) | base again (A/A)<br>× median per pass \
             | fast<br>× median per pass |"
        ),
        "{out}"
    );
    assert!(
        out.contains("0.50× [0.50–0.50] −50.0 % faster (6/6)"),
        "{out}"
    );
    assert!(
        out.contains("1.00× [0.95–1.05] +0.1 % unstable"),
        "the ratio's interval: {out}"
    );
    assert!(out.contains("unstable (3/6)"), "{out}");
    let without = set(vec![timed("base", 40.0, 1.0)]);
    let out = comparison_table(
        &without,
        Metric::NsPerOp,
        &rows,
        &["base", "fast"],
        &one_baseline(),
    )
    .render();
    assert!(!out.contains("A/A"), "no twin measured, no column: {out}");
}

#[test]
fn a_zero_baseline_gives_no_infinite_ratio() {
    let count = |i: &str, v: f64| {
        Record::new(
            BenchId::new("admission", i, "single"),
            Metric::AllocsPerOp,
            v,
        )
    };
    let rows = [Row::new("admission", "single", "single")];
    let s = set(vec![
        count("base", 0.0),
        count("boxed", 1.06),
        count("flat", 0.0),
    ]);
    let out = comparison_table(
        &s,
        Metric::AllocsPerOp,
        &rows,
        &["base", "boxed", "flat"],
        &one_baseline(),
    )
    .render();
    assert!(out.contains("1.06<br>more (baseline 0)"), "{out}");
    assert!(out.contains("0<br>1.00× +0.0 % same"), "{out}");
    assert!(!out.contains('∞'), "{out}");
    // Per pass, a baseline of 0 in some passes but not in all: a ratio, with no interval.
    let passes = |i: &str, values: &[f64]| {
        Record::from_passes(
            BenchId::new("admission", i, "single"),
            Metric::AllocsPerOp,
            values.to_vec(),
        )
    };
    let s = set(vec![
        passes("base", &[0.0, 2.0, 2.0, 4.0, 0.0, 2.0]),
        passes("boxed", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
    ]);
    let out = comparison_table(
        &s,
        Metric::AllocsPerOp,
        &rows,
        &["base", "boxed"],
        &one_baseline(),
    )
    .render();
    assert!(out.contains("×"), "{out}");
    assert!(!out.contains("NaN") && !out.contains("inf"), "{out}");
}

#[test]
fn joined_table_has_one_row_per_id_and_a_column_per_measured_metric() {
    let mut records = vec![timed("base", 40.0, 1.0)];
    records.push(Record::new(
        BenchId::new("admission", "base", "single"),
        Metric::AllocsPerOp,
        0.0,
    ));
    records.push(Record::new(
        BenchId::new("footprint", "base", "1-producers"),
        Metric::RetainedBytes,
        2048.0,
    ));
    let out = joined_table(&set(records)).render();
    assert!(
        out.starts_with("| Id | ns/op | allocs/op | retained |"),
        "{out}"
    );
    assert!(
        out.contains("| `admission/base/single` | 40.0 | 0 |  |"),
        "{out}"
    );
    assert!(
        out.contains("| `footprint/base/1-producers` |  |  | 2.00 KiB |"),
        "{out}"
    );
}

#[test]
fn paired_table_reports_the_ratio_interval_and_verdict() {
    use crate::paired::{PairedEstimate, paired_records};
    use crate::stats::MedianEstimate;
    let estimate = |median: f64, lower: f64, upper: f64| MedianEstimate {
        median,
        interval: Interval {
            lower,
            upper,
            confidence: 0.95,
        },
    };
    let mut records = paired_records(
        "admission",
        "base",
        "fast",
        "single",
        &PairedEstimate {
            a: estimate(40.0, 39.0, 41.0),
            b: estimate(20.0, 19.0, 21.0),
            ratio: estimate(0.5, 0.48, 0.52),
            pairs: 60,
        },
    );
    records.extend(paired_records(
        "admission",
        "base",
        "fast",
        "shared-2",
        &PairedEstimate {
            a: estimate(40.0, 39.0, 41.0),
            b: estimate(40.0, 39.0, 41.0),
            ratio: estimate(1.01, 0.97, 1.04),
            pairs: 60,
        },
    ));
    let label = |id: &BenchId| format!("{} · `{}`", id.experiment, id.parameter);
    let out = paired_table(&set(records), "base", "fast", label).render();
    assert!(
        out.starts_with("| Case | base (ns/op) | fast (ns/op) | Change |"),
        "{out}"
    );
    assert!(
        out.contains("| admission · `single` | 40.0 [39.0–41.0] | 20.0 [19.0–21.0] | −50.0 % [−52.0 % … −48.0 %] faster |"),
        "{out}"
    );
    assert!(
        out.contains("+1.0 % [−3.0 % … +4.0 %] inconclusive"),
        "{out}"
    );
}

#[test]
fn chart_values_carry_scaled_time_units() {
    assert_eq!(format_scaled(Metric::NsPerOp, 1_253_967.0), "1.25 ms");
    assert_eq!(format_scaled(Metric::NsPerOp, 42.0), "42.0 ns");
    assert_eq!(format_scaled(Metric::NsPerOp, 67_400.0), "67.4 µs");
    assert_eq!(format_scaled(Metric::AllocsPerOp, 0.5), "0.500 allocs/op");
}

/// A full run's timing with its allocation and wall-time stages' seconds.
fn staged(allocation: f64, wall_time: f64) -> Option<crate::record::TimingMethod> {
    Some(crate::record::TimingMethod {
        first_seed: 1,
        passes: 8,
        rounds: 1,
        sample_ns: 0,
        link_order: crate::record::LinkOrder::ShuffledPerPass,
        extended_passes: 16,
        same_within: None,
        stage_seconds: Some(crate::record::StageSeconds {
            allocation,
            instructions: 0.0,
            wall_time,
            jvm: 0.0,
            filtered: false,
        }),
    })
}

#[test]
fn environment_header_names_the_mode() {
    let out = environment_section(&set(vec![]));
    assert!(
        out.contains("Test CPU") && out.contains("abc1234") && out.contains("| Mode | full |"),
        "{out}"
    );
    assert!(!out.contains("Measuring time"), "no stage times recorded");
    let mut timed = set(vec![]);
    timed.timing = staged(212.4, 1_965.7);
    let out = environment_section(&timed);
    assert!(
        out.contains(
            "| Measuring time | 2,178 s (allocation 212 s, instruction counts 0 s, wall time \
             1,966 s), after the build |"
        ),
        "{out}"
    );
}

#[test]
fn the_wall_time_stage_is_told_by_case_longest_first() {
    assert_eq!(
        case_time_section(&set(vec![])),
        None,
        "no case times recorded"
    );
    let case = |parameter: &str, seconds: f64| {
        Record::new(
            crate::measure::case_time_id(&crate::lab::BenchCase::new("op", parameter)),
            Metric::CaseSeconds,
            seconds,
        )
    };
    let mut timed = set(vec![case("small", 20.0), case("large", 60.0)]);
    timed.timing = staged(0.0, 100.0);
    let out = case_time_section(&timed).unwrap();
    let large = out.find("| `op/large` | 60 s | 60.0 % |").expect(&out);
    let small = out.find("| `op/small` | 20 s | 20.0 % |").expect(&out);
    assert!(large < small, "longest first: {out}");
    assert!(out.contains("| all cases | 80 s | 80.0 % |"), "{out}");
    assert!(out.contains("of the stage's 100 s"), "{out}");
}

#[test]
fn a_per_pass_ratio_is_labelled_and_the_values_ratio_shown_where_it_falls_outside() {
    let passes = |name: &str, values: &[f64]| {
        let id = BenchId::new("admission", name, "single");
        Record::from_passes(id, Metric::NsPerOp, values.to_vec())
    };
    // Every pass 0.9× but one; the medians are 10 and 22.5 (2.25×): the two statistics disagree.
    let base = [10.0, 10.0, 10.0, 10.0, 10.0, 40.0, 40.0, 40.0];
    let odd = [9.0, 9.0, 9.0, 9.0, 36.0, 36.0, 36.0, 36.0];
    let even = base.map(|v| v * 0.5);
    let s = set(vec![
        passes("base", &base),
        passes("odd", &odd),
        passes("even", &even),
    ]);
    let rows = [Row::new("admission", "single", "1 thread")];
    let out = comparison_table(
        &s,
        Metric::NsPerOp,
        &rows,
        &["base", "odd", "even"],
        &one_baseline(),
    )
    .render();
    let header = out.lines().next().unwrap();
    assert_eq!(
        header,
        "| Case | base (baseline) | odd<br>× median per pass | even<br>× median per pass |"
    );
    assert!(out.contains("<br>0.90× [0.90–0.90]"), "{out}");
    assert!(out.contains("; values 2.25×"), "{out}");
    assert_eq!(
        out.matches("; values").count(),
        1,
        "even's two ratios agree: {out}"
    );
}

#[test]
fn a_baseline_whose_median_is_0_gives_its_row_no_ratio() {
    let passes = |cell: &str, values: &[f64]| {
        Record::from_passes(
            BenchId::spelled("lag", cell, "open"),
            Metric::Ratio,
            values.to_vec(),
        )
    };
    // Late sends are rare: the baseline's median is 0, yet three of its passes had some, so the
    // per-pass ratios are finite in some passes and the median of them is a number.
    let s = set(vec![
        passes("base", &[1.0, 4.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
        passes("some", &[2.0, 0.0, 2.0, 2.0, 0.0, 20.0, 0.0, 0.0]),
        passes("none", &[0.0; 8]),
    ]);
    let rows = [Row::new("lag", "open", "open loop")];
    let out = comparison_table(
        &s,
        Metric::Ratio,
        &rows,
        &["base", "some", "none"],
        &one_baseline(),
    )
    .render();
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "| Case | base (baseline) | some | none |",
            "|---|---:|---:|---:|",
            "| open loop | 0 [0–1.00]<br>1.00× | 1.00 [0–2.00]<br>unstable (baseline 0) \
             | 0 [0–0]<br>unstable (baseline 0) |",
        ],
        "{out}"
    );
}

#[test]
fn a_cell_the_replaced_run_decided_otherwise_says_so() {
    let passes = |i: &str, f: f64| {
        let values = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0].map(|v| v * f);
        Record::from_passes(
            BenchId::new("op", i, "small"),
            Metric::NsPerOp,
            values.to_vec(),
        )
    };
    let mut s = set(vec![
        passes("base", 1.0),
        passes("fast", 0.5),
        passes("same", 0.7),
    ]);
    s.previous = Some(Box::new(set(vec![
        passes("base", 1.0),
        passes("fast", 1.3),
        passes("same", 0.72),
    ])));
    let rows = [Row::new("op", "small", "small")];
    let out = comparison_table(
        &s,
        Metric::NsPerOp,
        &rows,
        &["base", "fast", "same"],
        &one_baseline(),
    )
    .render();
    assert!(out.contains("last run: 1.30× slower"), "{out}");
    assert_eq!(out.matches("last run").count(), 1, "{out}");
}

#[test]
fn a_values_table_prints_values_alone_and_leaves_out_designs_measured_nowhere() {
    let unexpected = Metric::EventsPer100Ops(crate::record::EventName::new("unexpected"));
    let count = |implementation: &str, parameter: &str, value: f64| {
        Record::new(
            BenchId::new("churn", implementation, parameter),
            unexpected,
            value,
        )
    };
    let s = set(vec![
        count("base", "one", 0.0),
        count("fast", "one", 0.0),
        count("fast", "two", 1.5),
    ]);
    let rows = [
        Row::new("churn", "one", "one"),
        Row::new("churn", "two", "two"),
    ];
    let out = values_table(&s, unexpected, &rows, &["base", "fast", "jvm"]).render();
    assert!(out.contains("| Case | `base` | `fast` |\n"), "{out}");
    assert!(out.contains("| one | 0 | 0 |\n"), "{out}");
    assert!(out.contains("| two | — | 1.50 |\n"), "{out}");
}
