//! Tests of [`super`].

use super::*;
use crate::record::{BenchId, Metric};

fn cmp(baseline: &Record, candidate: &Record) -> Comparison {
    compare(baseline, candidate, None)
}

fn timed(value: f64, lower: f64, upper: f64) -> Record {
    Record::new(BenchId::new("e", "i", "p"), Metric::NsPerOp, value).with_interval(Interval {
        lower,
        upper,
        confidence: 0.95,
    })
}

#[test]
fn separated_intervals_give_faster_or_slower() {
    let base = timed(100.0, 95.0, 105.0);
    let fast = cmp(&base, &timed(50.0, 48.0, 52.0));
    assert_eq!(fast.verdict, Verdict::Better);
    assert!((fast.ratio - 0.5).abs() < 1e-12);
    assert!((fast.change_percent + 50.0).abs() < 1e-9);
    assert_eq!(
        cmp(&base, &timed(150.0, 140.0, 160.0)).verdict,
        Verdict::Worse
    );
}

#[test]
fn overlapping_intervals_are_inconclusive_even_with_different_medians() {
    let base = timed(100.0, 90.0, 110.0);
    assert_eq!(
        cmp(&base, &timed(92.0, 85.0, 91.0)).verdict,
        Verdict::Inconclusive
    );
    assert_eq!(
        cmp(&base, &timed(108.0, 109.0, 120.0)).verdict,
        Verdict::Inconclusive
    );
    // touching at one point is an overlap
    assert_eq!(
        cmp(&base, &timed(80.0, 70.0, 90.0)).verdict,
        Verdict::Inconclusive
    );
}

fn passes(metric: Metric, values: &[f64]) -> Record {
    Record::from_passes(BenchId::new("e", "i", "p"), metric, values.to_vec())
}

#[test]
fn passes_compare_pass_by_pass_and_every_pass_must_agree() {
    let base = passes(Metric::NsPerOp, &[10.0, 20.0, 10.0, 20.0, 10.0, 20.0]);
    // Always a little faster than the baseline in the same pass, although the values of the
    // two overlap completely across passes.
    let c = cmp(
        &base,
        &passes(Metric::NsPerOp, &[9.0, 19.0, 9.0, 19.0, 9.0, 19.0]),
    );
    assert_eq!((c.verdict, c.agreement), (Verdict::Better, Some((6, 6))));
    let one_off = passes(Metric::NsPerOp, &[9.0, 19.0, 9.0, 21.0, 9.0, 19.0]);
    let c = cmp(&base, &one_off);
    assert_eq!((c.verdict, c.agreement), (Verdict::Unstable, Some((5, 6))));
    assert_eq!(c.verdict.word(), "unstable");
    let slower = cmp(&base, &passes(Metric::NsPerOp, &[11.0; 6]));
    assert_eq!(
        slower.verdict,
        Verdict::Unstable,
        "slower in 3 passes, faster in 3"
    );
    let twice = passes(Metric::NsPerOp, &[20.0, 40.0, 20.0, 40.0, 20.0, 40.0]);
    let c = cmp(&base, &twice);
    assert_eq!((c.verdict, c.ratio), (Verdict::Worse, 2.0));
    let ops = |v: &[f64]| passes(Metric::OpsPerSec, v);
    assert_eq!(
        cmp(&ops(&[1.0; 6]), &ops(&[2.0; 6])).verdict,
        Verdict::Better
    );
    let few = cmp(
        &passes(Metric::NsPerOp, &[1.0; 5]),
        &passes(Metric::NsPerOp, &[2.0; 5]),
    );
    assert_eq!(
        (few.verdict, few.agreement),
        (Verdict::Inconclusive, Some((5, 5))),
        "under {MIN_PASSES} passes"
    );
    let longer = cmp(&base, &passes(Metric::NsPerOp, &[1.0; 7]));
    assert_eq!(
        longer.agreement,
        Some((6, 6)),
        "added passes of one side: compared on the passes both ran"
    );
    assert!((nominal_false_positive_rate(8) - 0.0078125).abs() < 1e-12);
    let equal = cmp(&base, &base.clone());
    assert_eq!(
        (equal.verdict, equal.agreement),
        (Verdict::Same, Some((6, 6))),
        "equal in every pass"
    );
}

#[test]
fn a_pass_where_both_counted_nothing_is_equal() {
    let base = passes(Metric::Ratio, &[1.0, 4.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    let cell = passes(Metric::Ratio, &[2.0, 0.0, 2.0, 2.0, 0.0, 20.0, 0.0, 0.0]);
    assert_eq!(
        pass_ratios(&base, &cell),
        Some(vec![
            2.0,
            0.0,
            f64::INFINITY,
            f64::INFINITY,
            1.0,
            20.0,
            1.0,
            1.0
        ])
    );
    let c = cmp(&base, &cell);
    // Sorted 0, 1, 1, 1, 2, 20, ∞, ∞: the median is that of the ratios, not of NaNs.
    assert_eq!(c.ratio, 1.5);
    assert_eq!((c.verdict, c.agreement), (Verdict::Unstable, Some((4, 8))));
}

#[test]
fn added_passes_keep_the_sequence_at_the_decision_level() {
    assert_eq!(agreeing_needed(8), 8);
    assert_eq!(agreeing_needed(6), 6, "quick runs: unanimity, rate stated");
    // 14 of 16 alone would be 0.4 %, but after a first look at eight the whole sequence
    // would call 1.09 % of equal pairs different; 15 of 16 keeps it at 0.81 %.
    assert_eq!(agreeing_needed(16), 15);
    let rate = nominal_false_positive_rate(16);
    assert!((rate - 0.008_056_640_625).abs() < 1e-12, "{rate}");
    assert!(sequential_rate(16, 14) > DECISION_LEVEL);
    for n in STANDARD_PASSES..=32 {
        assert!(nominal_false_positive_rate(n) <= DECISION_LEVEL, "{n}");
    }
    let base = passes(Metric::NsPerOp, &[10.0; 16]);
    let mut values = [9.0; 16];
    values[3] = 11.0;
    let c = cmp(&base, &passes(Metric::NsPerOp, &values));
    assert_eq!((c.verdict, c.agreement), (Verdict::Better, Some((15, 16))));
    values[4] = 11.0;
    let c = cmp(&base, &passes(Metric::NsPerOp, &values));
    assert_eq!(
        (c.verdict, c.agreement),
        (Verdict::Unstable, Some((14, 16)))
    );
}

#[test]
fn a_ratio_interval_inside_the_margin_is_same_and_says_its_margin() {
    let base = passes(Metric::NsPerOp, &[10.0; 8]);
    let close = passes(
        Metric::NsPerOp,
        &[9.9, 10.1, 10.2, 9.8, 10.0, 9.9, 10.1, 10.0],
    );
    let c = compare(&base, &close, Some(0.03));
    assert_eq!(c.verdict, Verdict::Same);
    assert_eq!(c.verdict_text("slower"), "same (±3 %)");
    assert_eq!(cmp(&base, &close).verdict, Verdict::Unstable, "no margin");
    // Consistently 1 % faster, inside a 3 % margin: same, not faster.
    let c = compare(&base, &passes(Metric::NsPerOp, &[9.9; 8]), Some(0.03));
    assert_eq!(c.verdict, Verdict::Same);
    // 10 % slower in every pass is outside it.
    let c = compare(&base, &passes(Metric::NsPerOp, &[11.0; 8]), Some(0.03));
    assert_eq!((c.verdict, c.same_within), (Verdict::Worse, None));
    assert_eq!(c.verdict_text("slower"), "slower");
    let i = c.interval.unwrap();
    assert!((i.lower - 1.1).abs() < 1e-12 && (i.upper - 1.1).abs() < 1e-12);
}

#[test]
fn the_margin_is_the_median_twin_half_width_rounded_up() {
    let interval = |lower, upper| Interval {
        lower,
        upper,
        confidence: 0.99,
    };
    let twins = [
        interval(0.99, 1.012),
        interval(0.97, 1.01),
        interval(0.80, 1.50),
    ];
    assert_eq!(same_within(&twins), Some(0.03));
    assert_eq!(
        same_within(&[interval(0.999, 1.001)]),
        Some(0.01),
        "a floor"
    );
    assert_eq!(same_within(&[]), None);
}

#[test]
fn throughput_is_better_when_higher() {
    let ops = |v: f64| {
        Record::new(BenchId::new("e", "i", "p"), Metric::OpsPerSec, v).with_interval(Interval {
            lower: v * 0.99,
            upper: v * 1.01,
            confidence: 0.95,
        })
    };
    assert_eq!(cmp(&ops(100.0), &ops(200.0)).verdict, Verdict::Better);
    assert_eq!(cmp(&ops(200.0), &ops(100.0)).verdict, Verdict::Worse);
}

#[test]
fn exact_counts_compare_by_value() {
    let count = |v: f64| Record::new(BenchId::new("e", "i", "p"), Metric::AllocsPerOp, v);
    assert_eq!(cmp(&count(1.0), &count(0.0)).verdict, Verdict::Better);
    assert_eq!(cmp(&count(0.0), &count(0.0)).verdict, Verdict::Same);
    assert_eq!(cmp(&count(0.0), &count(0.0)).ratio, 1.0);
    let worse = cmp(&count(0.0), &count(2.0));
    assert_eq!(worse.verdict, Verdict::Worse);
    assert!(worse.ratio.is_infinite());
    // 1.0601 and 1.0598 both print 1.06: not "less".
    assert_eq!(cmp(&count(1.0601), &count(1.0598)).verdict, Verdict::Same);
    assert_eq!(cmp(&count(1.06), &count(1.07)).verdict, Verdict::Worse);
}
