//! The section every report carries on how far its wall-time verdicts can be trusted: how they
//! were taken, the false-positive rate the run's own A/A twins show, how many candidate verdicts
//! held in every pass, and where the wall-time verdict and the deterministic cost model disagree.

use crate::compare::{MIN_PASSES, Verdict, compare, nominal_false_positive_rate};
use crate::lab::twin;
use crate::record::{BenchId, LinkOrder, Metric, Record, ResultSet};
use crate::report::{fill, format_scaled};
use crate::table::{Align, Table};

/// How far the model's ratio must be from 1 to point a direction.
const MODEL_TOLERANCE: f64 = 0.02;

/// The wall-time metrics verdicts are taken on.
const TIMED: [Metric; 2] = [Metric::NsPerOp, Metric::OpsPerSec];

/// Counts of verdicts over a group of cells, and how far each cell's per-pass ratios spread.
#[derive(Debug, Default, Clone, PartialEq)]
struct Tally {
    cells: usize,
    decisive: usize,
    unanimous: usize,
    unstable: usize,
    inconclusive: usize,
    /// Largest over smallest per-pass ratio of each cell compared pass by pass.
    spreads: Vec<f64>,
}

impl Tally {
    fn add(&mut self, baseline: &Record, cell: &Record) {
        let c = compare(baseline, cell);
        self.cells += 1;
        match c.verdict {
            Verdict::Better | Verdict::Worse => self.decisive += 1,
            Verdict::Unstable => self.unstable += 1,
            Verdict::Inconclusive | Verdict::Same => self.inconclusive += 1,
        }
        if c.agreement.is_some_and(|(agreeing, of)| agreeing == of) {
            self.unanimous += 1;
        }
        if let (Some(b), Some(p)) = (&baseline.passes, &cell.passes)
            && b.len() == p.len()
        {
            let ratios: Vec<f64> = b.iter().zip(p).map(|(b, p)| p / b).collect();
            let max = ratios.iter().copied().fold(f64::MIN, f64::max);
            let min = ratios.iter().copied().fold(f64::MAX, f64::min);
            if min > 0.0 {
                self.spreads.push(max / min);
            }
        }
    }

    /// The median cell's spread, as `1.23×`.
    fn typical_spread(&self) -> String {
        if self.spreads.is_empty() {
            "—".into()
        } else {
            format!("{:.2}×", crate::paired::median(&self.spreads))
        }
    }

    fn percent(&self, n: usize) -> String {
        if self.cells == 0 {
            "—".into()
        } else {
            format!("{:.1} %", 100.0 * n as f64 / self.cells as f64)
        }
    }
}

/// The baseline's record of `cell`'s case.
fn baseline_of<'a>(set: &'a ResultSet, baseline: &str, cell: &Record) -> Option<&'a Record> {
    let id = BenchId::new(&cell.id.experiment, baseline, &cell.id.parameter);
    set.find(&id, cell.metric)
}

fn tally_table(set: &ResultSet, baseline: &str) -> Table {
    let twin = twin(baseline);
    let mut table = Table::new()
        .column("Cells", Align::Left)
        .column("compared", Align::Right)
        .column("faster or slower", Align::Right)
        .column("unstable", Align::Right)
        .column("inconclusive", Align::Right)
        .column("all passes agree", Align::Right)
        .column(
            "ratio spread across passes (median cell, max/min)",
            Align::Right,
        );
    for metric in TIMED {
        let mut aa = Tally::default();
        let mut candidates = Tally::default();
        for cell in set.records.iter().filter(|r| r.metric == metric) {
            let Some(base) = baseline_of(set, baseline, cell) else {
                continue;
            };
            if cell.id.implementation == twin {
                aa.add(base, cell);
            } else if cell.id.implementation != baseline {
                candidates.add(base, cell);
            }
        }
        for (who, t) in [
            ("A/A twin vs baseline", aa),
            ("designs vs baseline", candidates),
        ] {
            if t.cells == 0 {
                continue;
            }
            let observed = if who.starts_with("A/A") {
                format!(
                    "{} (**{}** false positives)",
                    t.decisive,
                    t.percent(t.decisive)
                )
            } else {
                format!("{} ({})", t.decisive, t.percent(t.decisive))
            };
            table.row(vec![
                format!("{who}, {}", metric.unit()),
                t.cells.to_string(),
                observed,
                t.unstable.to_string(),
                t.inconclusive.to_string(),
                t.unanimous.to_string(),
                t.typical_spread(),
            ]);
        }
    }
    table
}

/// `candidate / baseline` of `metric` on `cell`'s case, when both were measured.
fn model_ratio(set: &ResultSet, baseline: &str, cell: &BenchId, metric: Metric) -> Option<f64> {
    let find = |implementation: &str| {
        set.find(
            &BenchId::new(&cell.experiment, implementation, &cell.parameter),
            metric,
        )
    };
    let (base, candidate) = (find(baseline)?, find(&cell.implementation)?);
    (base.value > 0.0).then(|| candidate.value / base.value)
}

/// Cells whose decisive wall-time verdict the cost model contradicts, and how many decisive
/// cells had a model to check against.
fn disagreements(set: &ResultSet, baseline: &str) -> (Table, usize, usize) {
    let mut table = Table::new()
        .column("Cell", Align::Left)
        .column("wall time vs baseline", Align::Right)
        .column("instructions vs baseline", Align::Right)
        .column("est. cycles vs baseline (model)", Align::Right);
    let (mut checked, mut contradicted) = (0, 0);
    for cell in set.records.iter().filter(|r| r.metric == Metric::NsPerOp) {
        let Some(base) = baseline_of(set, baseline, cell) else {
            continue;
        };
        let wall = compare(base, cell);
        let faster = match wall.verdict {
            Verdict::Better => true,
            Verdict::Worse => false,
            _ => continue,
        };
        let cycles = model_ratio(set, baseline, &cell.id, Metric::EstimatedCyclesPerOp);
        let instructions = model_ratio(set, baseline, &cell.id, Metric::InstructionsPerOp);
        let Some(model) = cycles.or(instructions) else {
            continue;
        };
        checked += 1;
        let agrees = if faster {
            model < 1.0 - MODEL_TOLERANCE
        } else {
            model > 1.0 + MODEL_TOLERANCE
        };
        if !agrees {
            contradicted += 1;
            let (agreeing, of) = wall.agreement.unwrap_or((0, 0));
            let ratio = |r: Option<f64>| r.map_or("—".to_owned(), |r| format!("{r:.2}×"));
            table.row(vec![
                format!("`{}`", cell.id),
                format!(
                    "{:.2}× {} ({agreeing}/{of}), {}",
                    wall.ratio,
                    wall.verdict.word(),
                    format_scaled(Metric::NsPerOp, cell.value)
                ),
                ratio(instructions),
                ratio(cycles),
            ]);
        }
    }
    (table, checked, contradicted)
}

/// The section, or `None` for a result set that timed nothing.
pub fn verdict_section(set: &ResultSet, baseline: &str) -> Option<String> {
    let method = set.timing?;
    let layout = match method.link_order {
        LinkOrder::ShuffledPerPass => {
            "the code sections linked in another order, lld `--shuffle-sections`"
        }
        LinkOrder::Fixed => "here **fixed**: every pass ran the same binary (`--fixed-layout`)",
    };
    let interval = if method.passes >= MIN_PASSES {
        "the range the passes span (the distribution-free interval of their median, at least 95 %)"
    } else {
        "nothing: too few passes for an interval"
    };
    let (table, checked, contradicted) = disagreements(set, baseline);
    let disagreements = if checked == 0 {
        "No decisive single-threaded cell had a model to compare with in this run.".to_owned()
    } else if contradicted == 0 {
        format!("None: all {checked} decisive cells with a model agree with it.")
    } else {
        format!(
            "{contradicted} of the {checked} decisive cells with a model (a model within ±{:.0} % \
             counts as disagreeing with a decisive verdict):\n\n{}",
            MODEL_TOLERANCE * 100.0,
            table.render()
        )
    };
    let filled = fill(
        include_str!("../report/verdicts.md"),
        &[
            ("passes", method.passes.to_string()),
            (
                "seeds",
                format!(
                    "{}–{}",
                    method.first_seed,
                    method.first_seed + method.passes as u64 - 1
                ),
            ),
            ("layout", layout.to_owned()),
            ("twin", twin(baseline)),
            ("rounds", method.rounds.to_string()),
            (
                "sample",
                format_scaled(Metric::NsPerOp, method.sample_ns as f64),
            ),
            ("interval", interval.to_owned()),
            ("min_passes", MIN_PASSES.to_string()),
            (
                "nominal",
                format!(
                    "2/2^{} = {:.1} %",
                    method.passes,
                    100.0 * nominal_false_positive_rate(method.passes)
                ),
            ),
            ("tally", tally_table(set, baseline).render()),
            ("tolerance", format!("{:.0} %", MODEL_TOLERANCE * 100.0)),
            ("disagreements", disagreements),
        ],
    )
    .expect("the verdict template's slots are the ones filled here");
    Some(filled)
}

/// How the decisive wall-time verdicts of one run fared in another run of the same cells.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Rerun {
    /// Faster or slower in the first run.
    pub decisive: usize,
    /// The same verdict again.
    pub repeated: usize,
    /// Unstable or inconclusive in the second run.
    pub softened: usize,
    /// The opposite verdict.
    pub reversed: usize,
    /// Not measured in the second run.
    pub missing: usize,
}

/// Every decisive verdict of `first` (each candidate and the A/A twin against `baseline`, on
/// every wall-time metric) looked up in `second`.
pub fn rerun(first: &ResultSet, second: &ResultSet, baseline: &str) -> Rerun {
    let decisive = |v: Verdict| matches!(v, Verdict::Better | Verdict::Worse);
    let mut outcome = Rerun::default();
    for cell in first.records.iter().filter(|r| TIMED.contains(&r.metric)) {
        if cell.id.implementation == baseline {
            continue;
        }
        let Some(base) = baseline_of(first, baseline, cell) else {
            continue;
        };
        let verdict = compare(base, cell).verdict;
        if !decisive(verdict) {
            continue;
        }
        outcome.decisive += 1;
        let again = second
            .find(&cell.id, cell.metric)
            .zip(baseline_of(second, baseline, cell))
            .map(|(cell, base)| compare(base, cell).verdict);
        match again {
            None => outcome.missing += 1,
            Some(v) if v == verdict => outcome.repeated += 1,
            Some(v) if decisive(v) => outcome.reversed += 1,
            Some(_) => outcome.softened += 1,
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::Environment;
    use crate::record::{RunMode, TimingMethod};

    fn passes(implementation: &str, values: &[f64]) -> Record {
        Record::from_passes(
            BenchId::new("op", implementation, "small"),
            Metric::NsPerOp,
            values.to_vec(),
        )
    }

    fn count(implementation: &str, metric: Metric, value: f64) -> Record {
        Record::new(BenchId::new("op", implementation, "small"), metric, value)
    }

    fn set(records: Vec<Record>) -> ResultSet {
        ResultSet {
            lab: "tiny".into(),
            mode: RunMode::Full,
            environment: Environment::fixed_for_tests(),
            timing: Some(TimingMethod {
                first_seed: 1,
                passes: 6,
                rounds: 3,
                sample_ns: 1_000_000,
                link_order: LinkOrder::ShuffledPerPass,
            }),
            records,
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
        ]);
        let out = verdict_section(&s, "base").unwrap();
        assert!(
            out.contains("**6 passes**") && out.contains("`base-again`"),
            "{out}"
        );
        assert!(out.contains("2/2^6 = 3.1 %"), "{out}");
        assert!(
            out.contains(
                "| A/A twin vs baseline, ns/op | 1 | 1 (**100.0 %** false positives) | 0 | 0 | 1 |"
            ),
            "{out}"
        );
        assert!(
            out.contains("| designs vs baseline, ns/op | 2 | 1 (50.0 %) | 1 | 0 | 1 | 1.10× |"),
            "{out}"
        );
        assert!(!out.contains("{{"), "every slot filled: {out}");
        let untimed = ResultSet { timing: None, ..s };
        assert!(verdict_section(&untimed, "base").is_none());
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
        ]);
        let second = set(vec![
            passes("base", &BASE),
            passes("fast", &[6.0; 6]),
            passes("slow", &[11.0; 6]),
            passes("flip", &[30.0; 6]),
            passes("noisy", &[5.0; 6]),
        ]);
        let outcome = rerun(&first, &second, "base");
        assert_eq!(
            outcome,
            Rerun {
                decisive: 4,
                repeated: 1,
                softened: 1,
                reversed: 1,
                missing: 1
            }
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
        let out = verdict_section(&set(records), "base").unwrap();
        assert!(out.contains("1 of the 2 decisive cells"), "{out}");
        assert!(
            out.contains(
                "| `op/fast-by-luck/small` | 0.91× faster (6/6), 10.0 ns | 1.30× | 1.30× |"
            ),
            "{out}"
        );
        assert!(!out.contains("`op/fast/small`"), "{out}");
        let agreeing = set(vec![passes("base", &BASE), passes("fast", &[5.0; 6])]);
        let out = verdict_section(&agreeing, "base").unwrap();
        assert!(
            out.contains("No decisive single-threaded cell had a model"),
            "{out}"
        );
    }
}
