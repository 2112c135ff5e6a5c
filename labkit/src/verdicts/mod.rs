//! The section every report carries on how far its wall-time verdicts can be trusted: how they
//! were taken, the false-positive rate the run's own A/A twins show, how many candidate verdicts
//! held in every pass, and where the wall-time verdict and the deterministic cost model disagree.

use crate::compare::{
    MIN_PASSES, STANDARD_PASSES, Verdict, agreeing_needed, compare, decisive,
    nominal_false_positive_rate,
};
use crate::record::{Baselines, BenchId, LinkOrder, Metric, Record, ResultSet, Role};
use crate::record::{SLOWED_BY, is_floor};
use crate::report::format_scaled;
use crate::table::{Align, Table};
use crate::template;

/// How far the model's ratio must be from 1 to point a direction.
const MODEL_TOLERANCE: f64 = 0.02;

/// The wall-time metrics verdicts are taken on.
/// The per-pass metrics whose verdicts the trust section counts: the wall times, and the tail
/// (each pass's p99, under the same rules).
const TIMED: [Metric; 3] = [Metric::NsPerOp, Metric::OpsPerSec, Metric::LatencyP99Ns];

/// The wall-time metrics whose repeats `cargo xtask rerun` counts first; the tail apart.
pub const WALL_TIME: [Metric; 2] = [Metric::NsPerOp, Metric::OpsPerSec];
pub const TAIL: [Metric; 1] = [Metric::LatencyP99Ns];

/// Counts of verdicts over a group of cells, and how far each cell's per-pass ratios spread.
#[derive(Debug, Default, Clone, PartialEq)]
struct Tally {
    cells: usize,
    decisive: usize,
    same: usize,
    /// Cells decided on more than the standard passes.
    extended: usize,
    unanimous: usize,
    unstable: usize,
    inconclusive: usize,
    /// Largest over smallest per-pass ratio of each cell compared pass by pass.
    spreads: Vec<f64>,
}

impl Tally {
    fn add(&mut self, baseline: &Record, cell: &Record, margin: Option<f64>) {
        let c = compare(baseline, cell, margin);
        self.cells += 1;
        match c.verdict {
            Verdict::Better | Verdict::Worse => self.decisive += 1,
            Verdict::Same => self.same += 1,
            Verdict::Unstable => self.unstable += 1,
            Verdict::Inconclusive => self.inconclusive += 1,
        }
        if c.agreement.is_some_and(|(_, of)| of > STANDARD_PASSES) {
            self.extended += 1;
        }
        if c.agreement.is_some_and(|(agreeing, of)| agreeing == of) {
            self.unanimous += 1;
        }
        if let Some(ratios) = crate::compare::pass_ratios(baseline, cell) {
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
            format!("{:.2}×", crate::stats::median(&self.spreads))
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

/// The record of `cell`'s case by the baseline its implementation is compared with.
fn baseline_of<'a>(set: &'a ResultSet, baselines: &Baselines, cell: &Record) -> Option<&'a Record> {
    let baseline = baselines.of(&cell.id.implementation);
    let id = BenchId::new(&cell.id.experiment, baseline, &cell.id.parameter);
    set.find(&id, cell.metric)
}

/// The tally groups of one baseline's cells: its A/A twin, the designs compared with it, then each
/// slowed twin (the run's power); the JVM's named as such.
fn tally_groups(own: bool) -> Vec<(String, Tally)> {
    let (who, baseline) = if own {
        ("", "baseline")
    } else {
        ("JVM ", "JVM baseline")
    };
    let mut groups = vec![
        (format!("{who}A/A twin vs {baseline}"), Tally::default()),
        (format!("{who}designs vs {baseline}"), Tally::default()),
    ];
    for percent in SLOWED_BY {
        groups.push((
            format!("{baseline} slowed by {percent} % vs {baseline}"),
            Tally::default(),
        ));
    }
    groups
}

/// The verdict tallies, and how many cells were decided on added passes.
fn tally_table(set: &ResultSet, baselines: &Baselines) -> (Table, usize) {
    let margin = set.timing.and_then(|t| t.same_within);
    let mut extended = 0;
    let mut table = Table::new()
        .column("Cells", Align::Left)
        .column("compared", Align::Right)
        .column("faster or slower", Align::Right)
        .column("same (±δ)", Align::Right)
        .column("unstable", Align::Right)
        .column("inconclusive", Align::Right)
        .column("all passes agree", Align::Right)
        .column(
            "ratio spread across passes (median cell, max/min)",
            Align::Right,
        );
    let all = baselines.all();
    for metric in TIMED {
        let mut groups: Vec<(String, Tally)> = Vec::new();
        for (at, _) in all.iter().enumerate() {
            groups.extend(tally_groups(at == 0));
        }
        let per_baseline = groups.len() / all.len().max(1);
        for cell in set.records.iter().filter(|r| r.metric == metric) {
            let Some(base) = baseline_of(set, baselines, cell) else {
                continue;
            };
            let name = cell.id.implementation.as_str();
            let baseline = baselines.of(name);
            let Some(first) = all.iter().position(|b| *b == baseline) else {
                continue;
            };
            let group = match &cell.id.role {
                Role::Twin if name == baseline => 0,
                Role::Slowed(percent) => match SLOWED_BY.iter().position(|p| p == percent) {
                    Some(i) => 2 + i,
                    None => continue,
                },
                Role::Design if name != baseline && !is_floor(name) => 1,
                _ => continue,
            };
            groups[first * per_baseline + group]
                .1
                .add(base, cell, margin);
        }
        // Cells, not cell metrics: a cell given added passes has them for every metric.
        if metric == Metric::NsPerOp {
            extended += groups.iter().map(|(_, t)| t.extended).sum::<usize>();
        }
        for (who, t) in groups {
            if t.cells == 0 {
                continue;
            }
            let observed = if who.contains("A/A") {
                format!(
                    "{} (**{}** false positives)",
                    t.decisive,
                    t.percent(t.decisive)
                )
            } else {
                format!("{} ({})", t.decisive, t.percent(t.decisive))
            };
            table.row(vec![
                format!("{who}, {}", metric.facts().label),
                t.cells.to_string(),
                observed,
                t.same.to_string(),
                t.unstable.to_string(),
                t.inconclusive.to_string(),
                t.unanimous.to_string(),
                t.typical_spread(),
            ]);
        }
    }
    (table, extended)
}

/// `candidate / baseline` of `metric` on `cell`'s case, when both were measured.
fn model_ratio(
    set: &ResultSet,
    baselines: &Baselines,
    cell: &BenchId,
    metric: Metric,
) -> Option<f64> {
    let baseline = baselines.of(&cell.implementation);
    let base = set.find(
        &BenchId::new(&cell.experiment, baseline, &cell.parameter),
        metric,
    )?;
    let candidate = set.find(cell, metric)?;
    (base.value > 0.0).then(|| candidate.value / base.value)
}

/// Cells whose decisive wall-time verdict the cost model contradicts, and how many decisive
/// cells had a model to check against.
fn disagreements(set: &ResultSet, baselines: &Baselines) -> (Table, usize, usize) {
    let mut table = Table::new()
        .column("Cell", Align::Left)
        .column("wall time vs baseline (× median per pass)", Align::Right)
        .column("instructions vs baseline", Align::Right)
        .column("est. cycles vs baseline (model)", Align::Right);
    let (mut checked, mut contradicted) = (0, 0);
    for cell in set
        .records
        .iter()
        .filter(|r| r.metric == Metric::NsPerOp && !is_floor(&r.id.implementation))
    {
        let Some(base) = baseline_of(set, baselines, cell) else {
            continue;
        };
        let wall = compare(base, cell, set.timing.and_then(|t| t.same_within));
        let faster = match wall.verdict {
            Verdict::Better => true,
            Verdict::Worse => false,
            _ => continue,
        };
        let cycles = model_ratio(set, baselines, &cell.id, Metric::EstimatedCyclesPerOp);
        let instructions = model_ratio(set, baselines, &cell.id, Metric::InstructionsPerOp);
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

/// The A/A twins a run measures, as the trust section names them: the baseline's, and the JVM
/// baseline's (a second JMH fork in every pass) when the lab has JVM designs.
fn twins_text(baselines: &Baselines) -> String {
    let all = baselines.all();
    let own = format!("`{}`", Role::Twin.cell_name(all[0]));
    match all.get(1) {
        Some(jvm) => format!(
            "{own} (and `{}` beside the JVM designs: a second JMH fork of their baseline in every \
             pass)",
            Role::Twin.cell_name(jvm)
        ),
        None => own,
    }
}

/// The section, or `None` for a result set that timed nothing.
pub fn verdict_section(
    set: &ResultSet,
    baselines: &Baselines,
    single_threaded: &dyn Fn(&BenchId) -> bool,
) -> Option<String> {
    let baseline = baselines.all()[0];
    let method = set.timing?;
    let layout = match method.link_order {
        LinkOrder::ShuffledPerPass => {
            "the code sections linked in another order, lld `--shuffle-sections`"
        }
        LinkOrder::Fixed => "here **fixed**: every pass ran the same binary (`--fixed-layout`)",
    };
    let interval = if method.passes >= MIN_PASSES {
        "the distribution-free interval of their median (order statistics, at least 92 %: the \
         2nd to the 7th of eight passes, the 5th to the 12th of sixteen — one rank in from each \
         end, so that one disturbed pass cannot stretch it)"
    } else {
        "nothing: too few passes for an interval"
    };
    let (tally, extended) = tally_table(set, baselines);
    let margin = match method.same_within {
        Some(m) => format!(
            "**±{:.0} %**, the median half-width of the A/A twins' ratio intervals on the \
             single-threaded rows, rounded up",
            m * 100.0
        ),
        None => "not set in this run (no A/A twin with enough passes)".to_owned(),
    };
    let filled = template::render(
        include_str!("../../report/verdicts.md"),
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
            ("twin", twins_text(baselines)),
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
            ("tally", tally.render()),
            (
                "power",
                crate::resolution::power_text(set, baseline, single_threaded),
            ),
            ("repeats", crate::resolution::repeats_text(set)),
            ("margin", margin),
            (
                "coverage",
                format!("{:.0} %", crate::stats::PASS_COVERAGE * 100.0),
            ),
            ("extension", extension_text(&method, extended)),
            ("tolerance", format!("{:.0} %", MODEL_TOLERANCE * 100.0)),
            ("disagreements", disagreements_text(set, baselines)),
        ],
        None,
    )
    .expect("the verdict template's slots are the ones filled here");
    Some(filled)
}

/// How many decisive single-threaded cells the model contradicts, in a sentence.
fn disagreements_text(set: &ResultSet, baselines: &Baselines) -> String {
    let (_, checked, contradicted) = disagreements(set, baselines);
    if checked == 0 {
        "No decisive single-threaded cell had a model to compare with in this run.".to_owned()
    } else if contradicted == 0 {
        format!("None: all {checked} decisive cells with a model agree with it.")
    } else {
        format!(
            "{contradicted} of the {checked} decisive cells with a model (a model within ±{:.0} % \
             counts as disagreeing with a decisive verdict); the details list them.",
            MODEL_TOLERANCE * 100.0,
        )
    }
}

/// The passes added to undecided cells (`extended` of them in this run), in a sentence.
fn extension_text(method: &crate::record::TimingMethod, extended: usize) -> String {
    let extended_passes = method.extended_passes.max(method.passes);
    if extended_passes > method.passes {
        format!(
            "Cells left neither decided nor `same` after the {} standard passes got {} more \
             ({extended} cells in this run); on {extended_passes} passes a verdict needs {} \
             agreeing, which keeps the whole sequence's nominal rate at {:.2} %.",
            method.passes,
            extended_passes - method.passes,
            agreeing_needed(extended_passes),
            100.0 * nominal_false_positive_rate(extended_passes)
        )
    } else {
        "No cell got added passes in this run.".to_owned()
    }
}

/// The decisive single-threaded cells whose model (estimated cycles, else instructions) does not
/// show their verdict's direction, as a table; `None` when there are none.
pub fn disagreement_table(set: &ResultSet, baselines: &Baselines) -> Option<Table> {
    let (table, _, contradicted) = disagreements(set, baselines);
    (contradicted > 0).then_some(table)
}

/// How the decisive wall-time verdicts of one run fared in another run of the same cells, and
/// how far their effect sizes moved.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Rerun {
    /// Faster, slower or `same (±δ)` in the first run.
    pub decisive: usize,
    /// The same verdict again.
    pub repeated: usize,
    /// Unstable or inconclusive in the second run.
    pub softened: usize,
    /// The opposite direction: faster ↔ slower.
    pub reversed: usize,
    /// `same` ↔ faster or slower: equivalence and a difference, each decided in its run (a cell
    /// near the margin δ, or a δ that moved between the runs).
    pub same_or_different: usize,
    /// Not measured in the second run.
    pub missing: usize,
    /// Of the decisive ones, `same` in the first run, and `same` again.
    pub same: usize,
    pub same_repeated: usize,
    /// Design cells measured in both runs (on the first of the metrics: ns/op, or p99), and how
    /// many moved their median per-pass ratio to the baseline by more than 5 % and by more than
    /// 10 %.
    pub effect_cells: usize,
    pub moved_5: usize,
    pub moved_10: usize,
    /// The same on the single-threaded rows alone.
    pub single_effect_cells: usize,
    pub single_moved_5: usize,
}

/// Every decisive verdict of `first` on `metrics` (each candidate and each A/A twin against its
/// baseline, each run with its own margin) looked up in `second`; the slowed twins, which
/// measure power, are left out.
pub fn rerun(
    first: &ResultSet,
    second: &ResultSet,
    baselines: &Baselines,
    metrics: &[Metric],
    single_threaded: &dyn Fn(&BenchId) -> bool,
) -> Rerun {
    let margin = |set: &ResultSet| set.timing.and_then(|t| t.same_within);
    let mut outcome = Rerun::default();
    for cell in first.records.iter().filter(|r| metrics.contains(&r.metric)) {
        let name = cell.id.implementation.as_str();
        let candidate = match cell.id.role {
            Role::Design => !baselines.is_baseline(name) && !is_floor(name),
            Role::Twin => baselines.is_baseline(name),
            Role::Slowed(_) | Role::RatioTo(_) => false,
        };
        if !candidate {
            continue;
        }
        let Some(base) = baseline_of(first, baselines, cell) else {
            continue;
        };
        let c = compare(base, cell, margin(first));
        let again = second
            .find(&cell.id, cell.metric)
            .zip(baseline_of(second, baselines, cell))
            .map(|(cell, base)| compare(base, cell, margin(second)));
        if metrics.first() == Some(&cell.metric)
            && cell.id.role != Role::Twin
            && let Some(again) = again
            && c.agreement.is_some()
            && again.agreement.is_some()
        {
            outcome.effect_cells += 1;
            let moved = (again.ratio / c.ratio - 1.0).abs();
            outcome.moved_5 += usize::from(moved > 0.05);
            outcome.moved_10 += usize::from(moved > 0.10);
            if single_threaded(&cell.id) {
                outcome.single_effect_cells += 1;
                outcome.single_moved_5 += usize::from(moved > 0.05);
            }
        }
        if !decisive(c.verdict) {
            continue;
        }
        outcome.decisive += 1;
        outcome.same += usize::from(c.verdict == Verdict::Same);
        match again.map(|a| a.verdict) {
            None => outcome.missing += 1,
            Some(v) if v == c.verdict => {
                outcome.repeated += 1;
                outcome.same_repeated += usize::from(v == Verdict::Same);
            }
            Some(v) if decisive(v) && v != Verdict::Same && c.verdict != Verdict::Same => {
                outcome.reversed += 1
            }
            Some(v) if decisive(v) => outcome.same_or_different += 1,
            Some(_) => outcome.softened += 1,
        }
    }
    outcome
}

#[cfg(test)]
mod tests;
