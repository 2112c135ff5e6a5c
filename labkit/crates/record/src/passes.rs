//! What a run does after its standard wall-time passes, decided from their records: which passes
//! the machine disturbed (run again whole), which cells have one pass whose ratio to the baseline
//! is an outlier against the others (that pass run again on their cases with the **same seed**:
//! an outlier that reappears is the placement's, one that does not was the machine's), and which
//! undecided cells more passes can still decide ([`crate::compare::agreeing_needed`]). A cell
//! whose outlier pass was replaced gets the added passes too and is decided by their rule only,
//! so that re-drawing a disagreeing pass cannot raise the false-positive rate.
//!
//! The functions here only plan and judge; the driver runs the passes.

use std::collections::BTreeMap;

use crate::compare::{Verdict, agreeing_needed, compare, pass_ratios as ratios};
use crate::process::STEAL_SHARE;
use crate::record::{
    Baselines, BenchId, Metric, PassRepeat, Record, RepeatOutcome, RepeatReason, RepeatedCell,
};
use crate::stats::median;

/// The wall-time metrics whose verdicts the plans look at.
const TIMED: [Metric; 2] = [Metric::NsPerOp, Metric::OpsPerSec];

/// A pass's ratio is an outlier when its distance from the median of the other passes' ratios
/// (in logarithms, so 0.5× and 2× are as far) exceeds this many robust standard deviations of
/// those others (1.4826 × their median absolute deviation) …
pub const OUTLIER_SPREADS: f64 = 4.0;

/// … and at least this much (a 5 % step), so that passes that agree to a fraction of a percent
/// do not make every small wobble an outlier.
pub const OUTLIER_FLOOR: f64 = 0.05;

/// A pass is disturbed when the machine stole more than this share of its CPU time …
pub const DISTURBED_STEAL: f64 = 0.02;

/// … and more than this many times the run's median pass.
pub const DISTURBED_OVER_MEDIAN: f64 = 3.0;

/// Whether `ratios[i]` is an outlier against the other passes ([`OUTLIER_SPREADS`]).
pub fn is_outlier(ratios: &[f64], i: usize) -> bool {
    if ratios.iter().any(|r| *r <= 0.0 || !r.is_finite()) || ratios.len() < 4 {
        return false;
    }
    let others: Vec<f64> = ratios
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .map(|(_, r)| r.ln())
        .collect();
    let centre = median(&others);
    let deviations: Vec<f64> = others.iter().map(|l| (l - centre).abs()).collect();
    let spread = (OUTLIER_SPREADS * 1.4826 * median(&deviations)).max(OUTLIER_FLOOR);
    (ratios[i].ln() - centre).abs() > spread
}

/// The case of an id, as `--case` names it.
pub fn case_of(id: &BenchId) -> String {
    format!("{}/{}", id.experiment, id.parameter)
}

/// Every timed cell of `records` compared with its baseline (neither a baseline nor a harness
/// floor), with its baseline's record.
fn cells<'a>(records: &'a [Record], baselines: &Baselines) -> Vec<(&'a Record, &'a Record)> {
    let is_baseline = |r: &Record| baselines.is_baseline(&r.id.implementation) && r.id.is_design();
    let found: std::collections::HashMap<(&str, &str, &str, Metric), &Record> = records
        .iter()
        .filter(|r| TIMED.contains(&r.metric) && is_baseline(r))
        .map(|r| {
            let id = &r.id;
            let key = (
                id.experiment.as_str(),
                id.implementation.as_str(),
                id.parameter.as_str(),
                r.metric,
            );
            (key, r)
        })
        .collect();
    records
        .iter()
        .filter(|r| {
            TIMED.contains(&r.metric)
                && !is_baseline(r)
                && !crate::record::is_floor(&r.id.implementation)
        })
        .filter_map(|cell| {
            let key = (
                cell.id.experiment.as_str(),
                baselines.of(&cell.id.implementation),
                cell.id.parameter.as_str(),
                cell.metric,
            );
            Some((*found.get(&key)?, cell))
        })
        .collect()
}

/// A pass to run again on some cases because cells' ratios in it are outliers.
#[derive(Debug, Clone, PartialEq)]
pub struct OutlierRepeat {
    /// The pass, from 0.
    pub pass: usize,
    /// Each repeated case with its outlying cells and their ratios in that pass.
    pub cases: BTreeMap<String, Vec<(BenchId, Metric, f64)>>,
}

/// The outlier passes worth repeating: of every `unstable` cell whose disagreeing passes are all
/// outliers ([`is_outlier`]), so that a pass the machine disturbed is what keeps it undecided.
pub fn outlier_repeats(
    records: &[Record],
    baselines: &Baselines,
    margin: Option<f64>,
) -> Vec<OutlierRepeat> {
    let mut by_pass: BTreeMap<usize, OutlierRepeat> = BTreeMap::new();
    for (base, cell) in cells(records, baselines) {
        if compare(base, cell, margin).verdict != Verdict::Unstable {
            continue;
        }
        let Some(ratios) = ratios(base, cell) else {
            continue;
        };
        let centre = median(&ratios);
        let disagreeing: Vec<usize> = (0..ratios.len())
            .filter(|&i| (ratios[i] < 1.0) != (centre < 1.0) || ratios[i] == 1.0)
            .collect();
        if disagreeing.is_empty() || !disagreeing.iter().all(|&i| is_outlier(&ratios, i)) {
            continue;
        }
        for i in disagreeing {
            by_pass
                .entry(i)
                .or_insert_with(|| OutlierRepeat {
                    pass: i,
                    cases: BTreeMap::new(),
                })
                .cases
                .entry(case_of(&cell.id))
                .or_default()
                .push((cell.id.clone(), cell.metric, ratios[i]));
        }
    }
    by_pass.into_values().collect()
}

/// Judges an outlier repeat from the pass's records of the repeated cases measured again
/// (`again`), against the other passes of `records`: per case, the repeat replaces the first
/// measurement when none of its outliers reappears (the machine), and the first stays when any
/// does (the placement: reported as such). Returns the cases to replace and what was recorded.
pub fn judge_outliers(
    records: &[Record],
    baselines: &Baselines,
    repeat: &OutlierRepeat,
    seed: u64,
    again: &[Record],
) -> (Vec<String>, Vec<PassRepeat>) {
    let find = |set: &[Record], id: &BenchId, metric: Metric| {
        set.iter()
            .find(|r| r.id == *id && r.metric == metric)
            .map(|r| r.value)
    };
    let mut replaced = Vec::new();
    let mut judged = Vec::new();
    for (case, outliers) in &repeat.cases {
        let mut cells = Vec::new();
        for (id, metric, first) in outliers {
            let baseline = baselines.of(&id.implementation);
            let base_id = BenchId::new(&id.experiment, baseline, &id.parameter);
            let again_ratio = find(again, id, *metric)
                .zip(find(again, &base_id, *metric))
                .map(|(c, b)| c / b);
            let others = records
                .iter()
                .find(|r| r.id == *id && r.metric == *metric)
                .zip(
                    records
                        .iter()
                        .find(|r| r.id == base_id && r.metric == *metric),
                )
                .and_then(|(c, b)| ratios(b, c));
            let (Some(again_ratio), Some(mut ratios)) = (again_ratio, others) else {
                continue;
            };
            ratios[repeat.pass] = again_ratio;
            cells.push(RepeatedCell {
                id: id.clone(),
                metric: *metric,
                first: *first,
                again: again_ratio,
                outlier_again: is_outlier(&ratios, repeat.pass),
            });
        }
        if cells.is_empty() {
            continue;
        }
        let reappeared = cells.iter().filter(|c| c.outlier_again).count();
        let outcome = match reappeared {
            0 => RepeatOutcome::Machine,
            n if n == cells.len() => RepeatOutcome::Placement,
            _ => RepeatOutcome::Mixed,
        };
        if outcome == RepeatOutcome::Machine {
            replaced.push(case.clone());
        }
        judged.push(PassRepeat {
            pass: repeat.pass + 1,
            seed,
            cases: vec![case.clone()],
            reason: RepeatReason::Outlier,
            cells,
            outcome,
        });
    }
    (replaced, judged)
}

/// The passes (from 0) the machine disturbed, with their stolen shares: above
/// [`DISTURBED_STEAL`] and [`DISTURBED_OVER_MEDIAN`] times the median pass.
pub fn disturbed_passes(records: &[Record]) -> Vec<(usize, f64)> {
    let Some(steal) = records
        .iter()
        .find(|r| r.metric == Metric::PassDisturbance(STEAL_SHARE))
        .and_then(|r| r.passes.as_ref())
    else {
        return Vec::new();
    };
    let typical = median(steal);
    steal
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > DISTURBED_STEAL && **s > DISTURBED_OVER_MEDIAN * typical)
        .map(|(i, s)| (i, *s))
        .collect()
}

/// The stolen share one pass's records report.
pub fn steal_share(pass: &[Record]) -> Option<f64> {
    pass.iter()
        .find(|r| r.metric == Metric::PassDisturbance(STEAL_SHARE))
        .map(|r| r.value)
}

/// The `unstable` cells that added passes can still decide: those whose agreeing passes plus
/// every added one would reach [`agreeing_needed`] of `extended` (with 8 and 16: the cells with
/// one disagreeing pass), by case. The others stay `unstable` whatever the added passes show,
/// so they are not measured again.
pub fn decidable_cells(
    records: &[Record],
    baselines: &Baselines,
    margin: Option<f64>,
    extended: usize,
) -> BTreeMap<String, Vec<String>> {
    let mut cells_by_case: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (base, cell) in cells(records, baselines) {
        let c = compare(base, cell, margin);
        let Some((agreeing, of)) = c.agreement else {
            continue;
        };
        if c.verdict != Verdict::Unstable
            || extended <= of
            || agreeing + (extended - of) < agreeing_needed(extended)
        {
            continue;
        }
        let implementations = cells_by_case.entry(case_of(&cell.id)).or_default();
        let name = cell.id.cell_name();
        if !implementations.contains(&name) {
            implementations.push(name);
        }
    }
    cells_by_case
}

/// The `--case` argument that measures `implementations` of `case` (and their baselines).
pub fn case_argument(case: &str, implementations: &[String]) -> String {
    format!("{case}={}", implementations.join(","))
}

/// `pass` with the records of `cases` replaced by theirs in `again`.
pub fn replace_cases(pass: &mut Vec<Record>, cases: &[String], again: &[Record]) {
    let repeated = |r: &Record| cases.contains(&case_of(&r.id));
    pass.retain(|r| !repeated(r));
    pass.extend(again.iter().filter(|r| repeated(r)).cloned());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::combine_passes;

    fn pass(values: &[(&str, f64)]) -> Vec<Record> {
        values
            .iter()
            .map(|(implementation, v)| {
                Record::new(
                    BenchId::new("op", implementation, "small"),
                    Metric::NsPerOp,
                    *v,
                )
            })
            .collect()
    }

    #[test]
    fn an_outlier_is_far_from_the_others_by_their_own_spread() {
        let mut ratios = [1.31, 0.89, 1.26, 1.24, 1.33, 1.26, 1.30, 1.31];
        assert!(is_outlier(&ratios, 1));
        assert!(!is_outlier(&ratios, 0));
        ratios[1] = 1.21;
        assert!(!is_outlier(&ratios, 1), "within the spread");
        // Passes that agree to 0.1 % do not make a 3 % step an outlier (the floor).
        assert!(!is_outlier(&[1.0, 1.001, 0.999, 1.0, 1.03, 1.0], 4));
        assert!(!is_outlier(&[1.0, 2.0, 3.0], 1), "too few passes");
    }

    #[test]
    fn only_unstable_cells_whose_disagreeing_passes_are_all_outliers_are_repeated() {
        let base = [10.0; 8];
        let mut passes = Vec::new();
        for i in 0..8 {
            // `flip` is 30 % faster except in pass 3 (an outlier); `noisy` disagrees in two
            // passes that are within its spread; `fast` is decided.
            let flip = if i == 3 { 17.0 } else { 7.0 + 0.1 * i as f64 };
            let noisy = [9.0, 11.0, 9.5, 10.5, 9.0, 9.5, 9.2, 9.4][i];
            // The harness floor, shaped like `flip`, is never repeated nor given passes.
            let floor = if i == 3 { 17.0 } else { 1.0 };
            passes.push(pass(&[
                ("base", base[i]),
                ("flip", flip),
                ("noisy", noisy),
                ("fast", 5.0),
                (crate::record::FLOOR, floor),
            ]));
        }
        let combined = combine_passes(&passes);
        let baselines = Baselines::new("base", &[]);
        let plan = outlier_repeats(&combined, &baselines, None);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert_eq!(plan[0].pass, 3);
        let cells = &plan[0].cases["op/small"];
        assert_eq!(cells.len(), 1);
        assert_eq!(cells[0].0.implementation, "flip");
        // `flip` (7 of 8) can still be decided by 8 more passes; `noisy` (6 of 8) cannot.
        let undecided = decidable_cells(&combined, &baselines, None, 16);
        assert_eq!(undecided.len(), 1);
        assert_eq!(undecided["op/small"], ["flip"]);
        assert_eq!(
            case_argument("op/small", &undecided["op/small"]),
            "op/small=flip"
        );
        assert!(
            decidable_cells(&combined, &baselines, None, 8).is_empty(),
            "no added passes"
        );

        // Measured again with the same seed: the machine's (not an outlier again) …
        let again = pass(&[("base", 10.0), ("flip", 7.2), ("noisy", 9.0), ("fast", 5.0)]);
        let (replaced, judged) = judge_outliers(&combined, &baselines, &plan[0], 42, &again);
        assert_eq!(replaced, ["op/small"]);
        assert_eq!(judged[0].outcome, RepeatOutcome::Machine);
        assert_eq!((judged[0].pass, judged[0].seed), (4, 42));
        assert!((judged[0].cells[0].first - 1.7).abs() < 1e-12);
        let mut fourth = passes[3].clone();
        replace_cases(&mut fourth, &replaced, &again);
        assert_eq!(fourth.len(), 4);
        assert!(
            fourth
                .iter()
                .any(|r| r.id.implementation == "flip" && r.value == 7.2)
        );

        // … or the placement's (the outlier reappears): kept.
        let again = pass(&[
            ("base", 10.0),
            ("flip", 16.5),
            ("noisy", 9.0),
            ("fast", 5.0),
        ]);
        let (replaced, judged) = judge_outliers(&combined, &baselines, &plan[0], 42, &again);
        assert!(replaced.is_empty());
        assert_eq!(judged[0].outcome, RepeatOutcome::Placement);
        assert!(judged[0].cells[0].outlier_again);
    }

    #[test]
    fn a_jvm_design_is_judged_against_the_jvm_baseline() {
        let passes: Vec<Vec<Record>> = (0..8)
            .map(|i| {
                // Against `base` the JVM cell would be decided every time; against its own
                // baseline it agrees in 7 passes of 8, so 8 more passes can still decide it.
                let jvm_new = if i == 3 { 110.0 } else { 90.0 };
                pass(&[("base", 10.0), ("jvm-old", 100.0), ("jvm-new", jvm_new)])
            })
            .collect();
        let combined = combine_passes(&passes);
        let baselines = Baselines::new("base", &["jvm-old", "jvm-new"]);
        let undecided = decidable_cells(&combined, &baselines, None, 16);
        assert_eq!(undecided["op/small"], ["jvm-new"]);
        let own_only = decidable_cells(&combined, &Baselines::new("base", &[]), None, 16);
        assert!(own_only.is_empty(), "{own_only:?}");
    }

    #[test]
    fn a_pass_is_disturbed_when_its_steal_is_high_and_far_above_the_runs() {
        let steal = |values: &[f64]| {
            Record::from_passes(
                crate::process::disturbance_id(),
                Metric::PassDisturbance(STEAL_SHARE),
                values.to_vec(),
            )
        };
        let records = [steal(&[0.001, 0.002, 0.09, 0.001, 0.015, 0.002])];
        assert_eq!(disturbed_passes(&records), [(2, 0.09)]);
        let everywhere = [steal(&[0.05, 0.06, 0.05, 0.07])];
        assert!(disturbed_passes(&everywhere).is_empty(), "the run's norm");
        assert!(disturbed_passes(&[]).is_empty());
        assert_eq!(steal_share(&records), Some(records[0].value));
    }
}
