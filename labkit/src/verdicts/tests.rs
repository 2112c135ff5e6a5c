//! Tests of [`super`].

use super::*;
use crate::record::TimingMethod;
use crate::record::fixtures::{count, passes};

fn set(records: Vec<Record>) -> ResultSet {
    ResultSet {
        timing: Some(TimingMethod {
            first_seed: 1,
            passes: 6,
            rounds: 3,
            sample_ns: 1_000_000,
            link_order: LinkOrder::ShuffledPerPass,
            extended_passes: 6,
            same_within: None,
            stage_seconds: None,
        }),
        ..crate::record::fixtures::set(records)
    }
}

const BASE: [f64; 6] = [10.0, 12.0, 10.0, 12.0, 10.0, 12.0];

#[test]
fn the_tally_counts_the_twins_false_positives_apart_from_the_designs() {
    let s = set(vec![
        passes("base", &BASE),
        // The twin is faster in every pass: one A/A false positive.
        passes("base-again", &[9.0, 11.0, 9.0, 11.0, 9.0, 11.0]),
        passes("fast", &[5.0, 6.0, 5.0, 6.0, 5.0, 6.0]),
        passes("noisy", &[9.0, 13.0, 9.0, 13.0, 9.0, 13.0]),
        // The harness floor is faster in every pass and never counted.
        passes(crate::record::FLOOR, &[1.0; 6]),
    ]);
    let out = verdict_section(&s, &Baselines::new("base", &[]), &|_| true).unwrap();
    assert!(
        out.contains("**6 passes**") && out.contains("`base-again`"),
        "{out}"
    );
    assert!(out.contains("2/2^6 = 3.1 %"), "{out}");
    assert!(
        out.contains(
            "| A/A twin vs baseline, ns/op | 1 | 1 (**100.0 %** false positives) | 0 | 0 | 0 | 1 |"
        ),
        "{out}"
    );
    assert!(
        out.contains("| designs vs baseline, ns/op | 2 | 1 (50.0 %) | 0 | 1 | 0 | 1 | 1.10× |"),
        "{out}"
    );
    assert!(!out.contains("{{"), "every slot filled: {out}");
    let untimed = ResultSet { timing: None, ..s };
    assert!(verdict_section(&untimed, &Baselines::new("base", &[]), &|_| true).is_none());
}

#[test]
fn a_rerun_sorts_first_run_verdicts_into_repeated_softened_and_reversed() {
    let first = set(vec![
        passes("base", &BASE),
        passes("fast", &[5.0; 6]),
        passes("slow", &[20.0; 6]),
        passes("flip", &[5.0; 6]),
        passes("gone", &[5.0; 6]),
        passes("noisy", &[9.0, 13.0, 9.0, 13.0, 9.0, 13.0]),
        passes("steady", &[5.0; 6]),
        passes("equal", &BASE),
        passes("base-slowed-10", &[30.0; 6]),
        passes(crate::record::FLOOR, &[1.0; 6]),
    ]);
    let second = set(vec![
        passes("base", &BASE),
        passes("fast", &[6.0; 6]),
        passes("slow", &[11.0; 6]),
        passes("flip", &[30.0; 6]),
        passes("noisy", &[5.0; 6]),
        passes("steady", &[5.0; 6]),
        passes("equal", &[9.0; 6]),
    ]);
    let outcome = rerun(
        &first,
        &second,
        &Baselines::new("base", &[]),
        &WALL_TIME,
        &|_| true,
    );
    assert_eq!(
        outcome,
        Rerun {
            decisive: 6,
            repeated: 2,
            softened: 1,
            reversed: 1,
            same_or_different: 1,
            missing: 1,
            same: 1,
            same_repeated: 0,
            effect_cells: 6,
            moved_5: 5,
            moved_10: 5,
            single_effect_cells: 6,
            single_moved_5: 5,
        },
        "the slowed twin and the harness floor are left out"
    );
    // With a margin, an equal cell is `same` in both runs: a repeated decisive verdict.
    let with_margin = |records| ResultSet {
        timing: set(vec![]).timing.map(|t| TimingMethod {
            same_within: Some(0.05),
            ..t
        }),
        ..set(records)
    };
    let even = || passes("even", &BASE.map(|v| v * 1.01));
    let outcome = rerun(
        &with_margin(vec![passes("base", &BASE), even()]),
        &with_margin(vec![passes("base", &BASE), even()]),
        &Baselines::new("base", &[]),
        &WALL_TIME,
        &|_| false,
    );
    assert_eq!(
        (
            outcome.decisive,
            outcome.same,
            outcome.same_repeated,
            outcome.moved_5
        ),
        (1, 1, 1, 0)
    );
}

#[test]
fn decisive_cells_the_model_does_not_back_are_listed() {
    let mut records = vec![
        passes("base", &BASE),
        passes("fast", &[5.0, 6.0, 5.0, 6.0, 5.0, 6.0]),
        passes("fast-by-luck", &[9.0, 11.0, 9.0, 11.0, 9.0, 11.0]),
    ];
    for (implementation, cycles) in [("base", 100.0), ("fast", 50.0), ("fast-by-luck", 130.0)] {
        records.push(count(implementation, Metric::EstimatedCyclesPerOp, cycles));
        records.push(count(implementation, Metric::InstructionsPerOp, cycles));
    }
    let with_models = set(records);
    let out = verdict_section(&with_models, &Baselines::new("base", &[]), &|_| true).unwrap();
    assert!(out.contains("1 of the 2 decisive cells"), "{out}");
    assert!(out.contains("the details list them"), "{out}");
    let table = disagreement_table(&with_models, &Baselines::new("base", &[]))
        .unwrap()
        .render();
    assert!(
        table.contains("| `op/fast-by-luck/small` | 0.91× faster (6/6), 10.0 ns | 1.30× | 1.30× |"),
        "{table}"
    );
    assert!(!table.contains("`op/fast/small`"), "{table}");
    let agreeing = set(vec![passes("base", &BASE), passes("fast", &[5.0; 6])]);
    let out = verdict_section(&agreeing, &Baselines::new("base", &[]), &|_| true).unwrap();
    assert!(
        out.contains("No decisive single-threaded cell had a model"),
        "{out}"
    );
}
