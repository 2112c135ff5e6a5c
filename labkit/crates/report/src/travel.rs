//! Verdicts that travel: every full run is compared, cell by cell, with the run it replaced
//! (`ResultSet::previous`, whatever machine produced it), and each verdict this run decided is
//! `held` (the same verdict there), moved (another verdict there, or decisive on one side only:
//! `CPU-dependent` when that run was on another CPU, `did not hold` on this one) or `new` (not
//! measured there). Only a held verdict is one a reader on another
//! machine can expect to see.

use crate::compare::{Comparison, Resolution, Verdict, at_resolution, compare_in, decisive};
pub use crate::compare::{Travel, travel_of as of};
use crate::record::{Baselines, BenchId, Metric, ResultSet, Role, is_floor};
use crate::report::verdict_word;
use crate::table::{Align, Table};

/// The metrics the travel table counts: time and tail (throughput mirrors time per op).
const COUNTED: [Metric; 2] = [Metric::NsPerOp, Metric::LatencyP99Ns];

/// Effect-size bins, by this run's |median ratio − 1|.
const BINS: [(f64, &str); 3] = [(0.0, "< 10 %"), (0.10, "10–25 %"), (0.25, "≥ 25 %")];

/// Effect thresholds tried for the smallest effect that travelled.
const THRESHOLDS: [f64; 9] = [0.0, 0.05, 0.10, 0.15, 0.20, 0.25, 0.50, 1.0, 2.0];

/// The share of held verdicts a threshold needs.
const TRAVELLED: f64 = 0.95;

/// `new` against `old` on `metric` in `set`'s previous run, where both were measured, read at the
/// claim's `resolution` ([`at_resolution`]).
pub fn before(
    set: &ResultSet,
    old: &BenchId,
    new: &BenchId,
    metric: Metric,
    resolution: Resolution,
) -> Option<Comparison> {
    let previous = set.previous.as_deref()?;
    let (o, n) = (previous.find(old, metric)?, previous.find(new, metric)?);
    Some(at_resolution(compare_in(previous, o, n), o, n, resolution))
}

/// A row's travel when neither run decided its verdict.
pub const NEITHER: &str = "decided in neither run";

/// The run a set replaced, as its moved verdicts are named: on this CPU (brand, family and model)
/// they did not hold, which is the runs' spread; only on another are they CPU-dependent.
pub struct Replaced<'a> {
    pub revision: &'a str,
    /// The other CPU's name; `None`: this one.
    pub cpu: Option<String>,
}

impl<'a> Replaced<'a> {
    pub fn of(set: &'a ResultSet) -> Option<Self> {
        let env = &set.previous.as_deref()?.environment;
        let cpu =
            (!env.same_cpu(&set.environment)).then(|| env.cpu_named_against(&set.environment));
        Some(Self {
            revision: &env.git_revision,
            cpu,
        })
    }

    /// What a verdict that went another way there is.
    pub fn moved(&self) -> &'static str {
        match self.cpu {
            None => "another verdict",
            Some(_) => "another verdict on another CPU",
        }
    }

    /// The run in a row's words: `in the run of REV on this CPU`, `on the CPU run of REV`.
    pub fn run(&self) -> String {
        match &self.cpu {
            None => format!("in the run of {} on this CPU", self.revision),
            Some(cpu) => format!("on the {cpu} run of {}", self.revision),
        }
    }

    /// The run in brackets: `REV, this CPU`, `CPU, REV`.
    pub fn named(&self) -> String {
        match &self.cpu {
            None => format!("{}, this CPU", self.revision),
            Some(cpu) => format!("{cpu}, {}", self.revision),
        }
    }
}

/// A row's travel in plain words, for an answer: `same verdict`, `new`, or where it went another
/// way (`**another verdict on another CPU**: slower here, faster on the Intel Xeon run of <revision>`).
pub fn row_text(
    set: &ResultSet,
    metric: Metric,
    now: &Comparison,
    before: Option<&Comparison>,
) -> String {
    match (of(now, before), before, Replaced::of(set)) {
        (Some(Travel::Moved), Some(b), Some(replaced)) => {
            let here = verdict_word(metric, now.verdict);
            let there = verdict_word(metric, b.verdict);
            let (moved, run) = (replaced.moved(), replaced.run());
            format!("**{moved}**: {here} here, {there} {run}")
        }
        (Some(Travel::Held), ..) => "same verdict".to_owned(),
        (Some(Travel::Moved), ..) => "another verdict".to_owned(),
        (Some(Travel::New), ..) => "new".to_owned(),
        (None, ..) => NEITHER.to_owned(),
    }
}

/// One design cell against its baseline, here and in the previous run.
struct Cell {
    now: Comparison,
    before: Option<Comparison>,
}

/// Every design cell on [`COUNTED`] (A/A and slowed twins, baselines and the harness floor left
/// out), with its verdict here and there.
fn cells(set: &ResultSet, baselines: &Baselines) -> Vec<Cell> {
    set.records
        .iter()
        .filter(|r| COUNTED.contains(&r.metric) && r.passes.is_some())
        .filter(|r| {
            let name = r.id.implementation.as_str();
            r.id.role == Role::Design && !baselines.is_baseline(name) && !is_floor(name)
        })
        .filter_map(|r| {
            let base = BenchId::new(
                &r.id.experiment,
                baselines.of(&r.id.implementation),
                &r.id.parameter,
            );
            let now = compare_in(set, set.find(&base, r.metric)?, r);
            let before = set.previous.as_deref().and_then(|p| {
                Some(compare_in(
                    p,
                    p.find(&base, r.metric)?,
                    p.find(&r.id, r.metric)?,
                ))
            });
            Some(Cell { now, before })
        })
        .collect()
}

fn effect(c: &Comparison) -> f64 {
    (c.ratio - 1.0).abs()
}

/// What became of one cell's verdict between the two runs: every cell decided in either run
/// falls in exactly one of these, so the travel table's columns add up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// The same verdict in both.
    Held,
    /// Faster in one, slower in the other.
    Reversed,
    /// The same within the margin in one, faster or slower in the other.
    SameAndMoved,
    /// Decided here, unstable or inconclusive there.
    NotDecidedThere,
    /// Decided here, not measured there.
    New,
    /// Decided there, unstable or inconclusive here.
    DecidedThereOnly,
    /// Decided in neither.
    Neither,
}

impl Outcome {
    fn of(cell: &Cell) -> Self {
        let now = cell.now.verdict;
        match cell.before.as_ref().map(|b| b.verdict) {
            None if decisive(now) => Self::New,
            None => Self::Neither,
            Some(before) => match (decisive(now), decisive(before)) {
                (false, false) => Self::Neither,
                (false, true) => Self::DecidedThereOnly,
                (true, false) => Self::NotDecidedThere,
                (true, true) if now == before => Self::Held,
                (true, true) if now == Verdict::Same || before == Verdict::Same => {
                    Self::SameAndMoved
                }
                (true, true) => Self::Reversed,
            },
        }
    }
}

/// The travel table's columns after the effect: what they count, and the outcomes counted.
const COLUMNS: [(&str, &[Outcome]); 7] = [
    (
        "decided here",
        &[
            Outcome::Held,
            Outcome::Reversed,
            Outcome::SameAndMoved,
            Outcome::NotDecidedThere,
            Outcome::New,
        ],
    ),
    ("held", &[Outcome::Held]),
    ("reversed there", &[Outcome::Reversed]),
    ("same ↔ faster or slower", &[Outcome::SameAndMoved]),
    ("not decided there", &[Outcome::NotDecidedThere]),
    ("new", &[Outcome::New]),
    ("decided there only", &[Outcome::DecidedThereOnly]),
];

/// The travel table: per effect bin, the verdicts decided here and what became of them there
/// (the five after "decided here" add up to it), the verdicts decided there only, and how many
/// cells' median ratio moved by > 10 %.
fn table(cells: &[Cell]) -> Table {
    let mut t = Table::new().column("effect here", Align::Left);
    for (header, _) in COLUMNS {
        t = t.column(header, Align::Right);
    }
    t = t.column("median ratio moved > 10 %", Align::Right);
    let bins = BINS.iter().enumerate().map(|(i, (low, label))| {
        let high = BINS.get(i + 1).map_or(f64::INFINITY, |(h, _)| *h);
        (label.to_string(), *low, high)
    });
    for (label, low, high) in bins.chain([("all".to_string(), 0.0, f64::INFINITY)]) {
        let inside: Vec<&Cell> = cells
            .iter()
            .filter(|c| (low..high).contains(&effect(&c.now)))
            .collect();
        let outcomes: Vec<Outcome> = inside.iter().map(|c| Outcome::of(c)).collect();
        let compared: Vec<(&Comparison, &Comparison)> = inside
            .iter()
            .filter_map(|c| Some((&c.now, c.before.as_ref()?)))
            .collect();
        let moved = compared
            .iter()
            .filter(|(now, before)| (now.ratio / before.ratio - 1.0).abs() > 0.10)
            .count();
        let mut row = vec![label];
        row.extend(COLUMNS.iter().map(|(_, counted)| {
            outcomes
                .iter()
                .filter(|o| counted.contains(o))
                .count()
                .to_string()
        }));
        row.push(format!("{moved} of {}", compared.len()));
        t.row(row);
    }
    t
}

/// The smallest effect from which verdicts decided here held there in at least
/// [`TRAVELLED`] of cells, with how many held of how many.
fn smallest_travelled(cells: &[Cell]) -> Option<(f64, usize, usize)> {
    THRESHOLDS.iter().find_map(|&t| {
        let from: Vec<&Cell> = cells
            .iter()
            .filter(|c| decisive(c.now.verdict) && c.before.is_some() && effect(&c.now) >= t)
            .collect();
        let held = from
            .iter()
            .filter(|c| of(&c.now, c.before.as_ref()) == Some(Travel::Held))
            .count();
        (!from.is_empty() && held as f64 >= TRAVELLED * from.len() as f64).then_some((
            t,
            held,
            from.len(),
        ))
    })
}

/// The two runs' environments side by side.
fn environments(set: &ResultSet, previous: &ResultSet) -> Table {
    let (now, then) = (&set.environment, &previous.environment);
    let mut t = Table::new()
        .column("", Align::Left)
        .column("this run", Align::Left)
        .column("the run it replaced", Align::Left);
    let family = |f: &str| {
        if f.is_empty() {
            "(not recorded)".to_owned()
        } else {
            f.to_owned()
        }
    };
    for (what, a, b) in [
        ("CPU", now.cpu_model.clone(), then.cpu_model.clone()),
        (
            "microarchitecture",
            family(&now.cpu_family),
            family(&then.cpu_family),
        ),
        ("kernel", now.os.clone(), then.os.clone()),
        ("rustc", now.rustc.clone(), then.rustc.clone()),
        (
            "revision",
            now.git_revision.clone(),
            then.git_revision.clone(),
        ),
        ("date", now.date.clone(), then.date.clone()),
    ] {
        t.row(vec![what.to_owned(), a, b]);
    }
    t
}

/// The report's section on how this run's verdicts fared in the run it replaced.
pub fn section(set: &ResultSet, baselines: &Baselines) -> String {
    let heading = "### Across machines: this run against the one it replaced\n\n";
    let Some(previous) = set.previous.as_deref() else {
        return format!(
            "{heading}No earlier run of this mode was in the results directory, so no verdict \
             here is known to travel: every one is `new`.\n"
        );
    };
    let cells = cells(set, baselines);
    let smallest = match smallest_travelled(&cells) {
        Some((0.0, held, of)) => format!(
            "At every effect size, {held} of {of} verdicts decided here held there (≥ {:.0} %).",
            TRAVELLED * 100.0
        ),
        Some((t, held, of)) => format!(
            "From an effect of {:.0} % up, {held} of {of} verdicts decided here held there \
             (≥ {:.0} %); below it, read a verdict as this machine's.",
            t * 100.0,
            TRAVELLED * 100.0
        ),
        None => format!(
            "No effect size held in ≥ {:.0} % of cells: read every verdict as this machine's.",
            TRAVELLED * 100.0
        ),
    };
    format!(
        "{heading}{}\nDesign cells against their baseline (ns/op and p99; A/A and slowed twins \
         apart), each run with its own passes and margin, by this run's effect \
         (|median ratio − 1|); the five columns after \"decided here\" add up to it:\n\n{}\n\
         {smallest}\n",
        environments(set, previous).render(),
        table(&cells).render()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;
    use crate::record::fixtures::passes;

    fn with_previous(now: Vec<Record>, before: Vec<Record>) -> ResultSet {
        let mut set = crate::record::fixtures::set(now);
        set.previous = Some(Box::new(crate::record::fixtures::set(before)));
        set
    }

    #[test]
    fn verdicts_held_reversed_undecided_or_new() {
        let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
        let scaled = |f: f64| up.iter().map(|v| v * f).collect::<Vec<_>>();
        let noisy = [9.0, 11.0, 7.0, 13.0, 10.5, 9.5, 10.0, 10.0];
        let set = with_previous(
            vec![
                passes("base", &up),
                passes("fast", &scaled(0.5)),
                passes("flip", &scaled(0.7)),
                passes("wobble", &scaled(0.95)),
                passes("fresh", &scaled(2.0)),
                passes("steady", &up),
                passes("lost", &noisy),
            ],
            vec![
                passes("base", &up),
                passes("fast", &scaled(0.55)),
                passes("flip", &scaled(1.3)),
                passes("wobble", &noisy),
                passes("steady", &scaled(0.8)),
                passes("lost", &scaled(0.6)),
            ],
        );
        let id = |i: &str| BenchId::new("op", i, "small");
        let travel = |i: &str| {
            let now = compare_in(
                &set,
                set.find(&id("base"), Metric::NsPerOp).unwrap(),
                set.find(&id(i), Metric::NsPerOp).unwrap(),
            );
            let before = before(
                &set,
                &id("base"),
                &id(i),
                Metric::NsPerOp,
                Default::default(),
            );
            (
                of(&now, before.as_ref()),
                row_text(&set, Metric::NsPerOp, &now, before.as_ref()),
            )
        };
        assert_eq!(travel("fast"), (Some(Travel::Held), "same verdict".into()));
        assert_eq!(
            travel("flip"),
            (
                Some(Travel::Moved),
                "**another verdict**: faster here, slower in the run of abc1234 on this CPU".into()
            )
        );
        assert_eq!(travel("wobble").0, Some(Travel::Moved));
        assert_eq!(travel("fresh"), (Some(Travel::New), "new".into()));
        let baselines = Baselines::new("base", &[]);
        let section = section(&set, &baselines);
        assert!(
            section.contains("| microarchitecture | TestVendor family 6 model 1 |"),
            "{section}"
        );
        assert!(
            section.contains("| ≥ 25 % | 3 | 1 | 1 | 0 | 0 | 1 | 1 | 2 of 3 |")
                && section.contains("| < 10 % | 2 | 0 | 0 | 1 | 1 | 0 | 0 | 2 of 2 |")
                && section.contains("| all | 5 | 1 | 1 | 1 | 1 | 1 | 1 | 4 of 5 |"),
            "{section}"
        );
        assert!(
            section.contains("From an effect of 50 % up, 1 of 1"),
            "{section}"
        );
        let alone = crate::record::fixtures::set(vec![passes("base", &up)]);
        assert!(section_without_previous(&alone).contains("every one is `new`"));
    }

    fn section_without_previous(set: &ResultSet) -> String {
        section(set, &Baselines::new("base", &[]))
    }
}
