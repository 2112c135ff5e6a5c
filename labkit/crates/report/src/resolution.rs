//! What a run could resolve and what it ran again, for the trust section of every report: the
//! slowed twins' detection rate (its power, beside the A/A twin's false-positive rate), and the
//! passes repeated with the same seed, with the placements that kept an outlier listed for anyone
//! to reproduce.

use crate::compare::{Comparison, Verdict, compare};
use crate::record::{BenchId, Metric, RepeatOutcome, RepeatReason, ResultSet};
use crate::record::{Role, SLOWED_BY};
use crate::table::{Align, Table};

/// Detection of one slowed twin over a group of rows.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Detection {
    pub rows: usize,
    /// Called slower.
    pub detected: usize,
    /// Called faster: a detection in the wrong direction.
    pub wrong_way: usize,
}

/// The rows (the baseline's id) where a slowed twin was not called slower, with its comparison.
pub type Missed = Vec<(BenchId, Comparison)>;

/// How each slowed twin (by its percent) fared on the ns/op rows `rows` picks.
pub fn detections(
    set: &ResultSet,
    baseline: &str,
    rows: impl Fn(&BenchId) -> bool,
) -> Vec<(u32, Detection, Missed)> {
    let margin = set.timing.and_then(|t| t.same_within);
    SLOWED_BY
        .iter()
        .map(|&percent| {
            let mut detection = Detection::default();
            let mut missed = Vec::new();
            for cell in set
                .records
                .iter()
                .filter(|r| {
                    r.metric == Metric::NsPerOp
                        && r.id.implementation == baseline
                        && r.id.role == Role::Slowed(percent)
                })
                .filter(|r| rows(&r.id))
            {
                let base_id = BenchId::new(&cell.id.experiment, baseline, &cell.id.parameter);
                let Some(base) = set.find(&base_id, Metric::NsPerOp) else {
                    continue;
                };
                detection.rows += 1;
                let comparison = compare(base, cell, margin);
                match comparison.verdict {
                    Verdict::Worse => detection.detected += 1,
                    Verdict::Better => {
                        detection.wrong_way += 1;
                        missed.push((base_id, comparison));
                    }
                    _ => missed.push((base_id, comparison)),
                }
            }
            (percent, detection, missed)
        })
        .collect()
}

fn share(n: usize, of: usize) -> String {
    if of == 0 {
        "—".into()
    } else {
        format!("{:.1} %", 100.0 * n as f64 / of as f64)
    }
}

/// The power paragraph: per slowed twin, on single-threaded and on concurrent rows, how often it
/// was called slower; and the single-threaded rows that did not detect the largest slowdown.
pub fn power_text(
    set: &ResultSet,
    baseline: &str,
    single_threaded: &dyn Fn(&BenchId) -> bool,
) -> String {
    let single = detections(set, baseline, single_threaded);
    let concurrent = detections(set, baseline, |id| !single_threaded(id));
    if single
        .iter()
        .chain(&concurrent)
        .all(|(_, d, _)| d.rows == 0)
    {
        return "No slowed twin was measured in this run.".into();
    }
    let mut table = Table::new()
        .column("Baseline slowed by", Align::Left)
        .column("single-threaded rows: called slower", Align::Right)
        .column("concurrent rows: called slower", Align::Right)
        .column("called faster (wrong way)", Align::Right);
    for ((percent, s, _), (_, c, _)) in single.iter().zip(&concurrent) {
        table.row(vec![
            format!("{percent} %"),
            format!(
                "{} of {} ({})",
                s.detected,
                s.rows,
                share(s.detected, s.rows)
            ),
            format!(
                "{} of {} ({})",
                c.detected,
                c.rows,
                share(c.detected, c.rows)
            ),
            (s.wrong_way + c.wrong_way).to_string(),
        ]);
    }
    let mut text = format!(
        "In every row the baseline's A/A twin (a second, separately placed run of the baseline) \
         was also compared lengthened by a share of its own time, like a design that is that \
         much slower with the baseline's own variation. How often the run called it slower is \
         what it could detect:\n\n{}",
        table.render()
    );
    if let Some((largest, _, missed)) = single.last()
        && !missed.is_empty()
    {
        text.push_str(&format!(
            "\n\n{} single-threaded rows did not detect a {largest} % slowdown; the details list \
             them beside their A/A twins.",
            missed.len()
        ));
    }
    text
}

/// The single-threaded rows that did not detect the largest slowdown, each with the slowed
/// twin's passes beside the A/A twin's in the same row (the measured reason); `None` when every
/// row detected it.
pub fn undetected(
    set: &ResultSet,
    baseline: &str,
    single_threaded: &dyn Fn(&BenchId) -> bool,
) -> Option<String> {
    let single = detections(set, baseline, single_threaded);
    let (largest, _, missed) = single.last().filter(|(_, _, m)| !m.is_empty())?;
    let margin = set.timing.and_then(|t| t.same_within);
    let listed: Vec<String> = missed
        .iter()
        .map(|(id, slowed)| {
            let aa = BenchId::new(&id.experiment, baseline, &id.parameter).with_role(Role::Twin);
            let aa = set
                .find(id, Metric::NsPerOp)
                .zip(set.find(&aa, Metric::NsPerOp))
                .map(|(b, c)| compare(b, c, margin));
            format!(
                "- `{id}`: slowed {}; A/A twin {}",
                passes_summary(slowed),
                aa.as_ref()
                    .map_or_else(|| "not measured".into(), passes_summary)
            )
        })
        .collect();
    Some(format!(
        "Single-threaded rows that did not detect a {largest} % slowdown, each with the slowed \
         twin's median ratio, its interval and how many passes were slower, beside the A/A \
         twin's in the same row (where the A/A interval is as wide as the slowdown, a difference \
         of that size is within that row's noise):\n\n{}",
        listed.join("\n")
    ))
}

/// `1.07× [0.95, 1.19], 6 of 8 passes slower`: a per-pass comparison in a few words.
fn passes_summary(c: &Comparison) -> String {
    let interval = c.interval.map_or_else(String::new, |i| {
        format!(" [{:.2}, {:.2}]", i.lower, i.upper)
    });
    let slower = match c.agreement {
        Some((agreeing, of)) if c.ratio > 1.0 => format!(", {agreeing} of {of} passes slower"),
        Some((agreeing, of)) => format!(", {} of {of} passes slower", of - agreeing),
        None => String::new(),
    };
    format!("{:.2}×{interval}{slower}", c.ratio)
}

/// What the machine did to each pass, one value per pass: stolen CPU share, involuntary
/// switches, migrations (the final passes, repeats included; the added passes too).
struct Disturbances {
    steal: Vec<f64>,
    switches: Vec<f64>,
    migrations: Vec<f64>,
}

/// `None` when no pass recorded its stolen share.
fn disturbances(set: &ResultSet) -> Option<Disturbances> {
    let column = |event| {
        set.find(
            &crate::process::disturbance_id(),
            Metric::PassDisturbance(event),
        )
        .and_then(|r| r.passes.clone())
    };
    Some(Disturbances {
        steal: column(crate::process::STEAL_SHARE)?,
        switches: column(crate::process::INVOLUNTARY_SWITCHES).unwrap_or_default(),
        migrations: column(crate::process::MIGRATIONS).unwrap_or_default(),
    })
}

/// [`Disturbances`] as a table, one row per pass. `None` when no pass recorded it.
pub fn disturbance_table(set: &ResultSet) -> Option<Table> {
    let Disturbances {
        steal,
        switches,
        migrations,
    } = disturbances(set)?;
    let mut table = Table::new()
        .column("Pass", Align::Left)
        .column("CPU time stolen", Align::Right)
        .column("involuntary context switches", Align::Right)
        .column("CPU migrations", Align::Right);
    let count =
        |values: &[f64], i: usize| values.get(i).map_or("—".into(), |v| format!("{v:.0}"));
    for (i, share) in steal.iter().enumerate() {
        table.row(vec![
            (i + 1).to_string(),
            format!("{:.2} %", share * 100.0),
            count(&switches, i),
            count(&migrations, i),
        ]);
    }
    Some(table)
}

/// What the machine did over the passes, in one sentence (each pass's row is in the details,
/// [`disturbance_table`]). `None` when no pass recorded it.
pub fn disturbance_summary(set: &ResultSet) -> Option<String> {
    let Disturbances {
        steal,
        switches,
        migrations,
    } = disturbances(set)?;
    let max = |values: &[f64]| values.iter().copied().fold(0.0, f64::max);
    Some(format!(
        "Over its {} passes the machine stole at most {:.2} % of a pass's CPU time (median \
         {:.2} %), with at most {:.0} involuntary context switches and {:.0} CPU migrations in a \
         pass (each pass in the details); a pass that loses more than {:.0} % of its CPU time, \
         and more than {:.0}× the median pass, is run again whole.",
        steal.len(),
        max(&steal) * 100.0,
        crate::stats::median(&steal) * 100.0,
        max(&switches),
        max(&migrations),
        crate::passes::DISTURBED_STEAL * 100.0,
        crate::passes::DISTURBED_OVER_MEDIAN,
    ))
}

/// The repeats paragraph: what the machine did over the passes, how many passes were run again
/// and why, what came of it, and the placements that kept an outlier, each with its seed.
pub fn repeats_text(set: &ResultSet) -> String {
    let disturbances = disturbance_summary(set).map_or(String::new(), |s| format!("{s}\n\n"));
    if set.repeats.is_empty() {
        return format!(
            "{disturbances}No pass was run again: no pass was disturbed, and no unstable cell \
             had an outlier pass."
        );
    }
    let count = |reason_outlier: bool, outcome: RepeatOutcome| {
        set.repeats
            .iter()
            .filter(|r| matches!(r.reason, RepeatReason::Outlier) == reason_outlier)
            .filter(|r| r.outcome == outcome)
            .count()
    };
    let mut text = format!(
        "{disturbances}Passes run again with their own seed: {} disturbed passes (the machine stole CPU \
         time; {} repeats less disturbed and kept), {} outlier repeats of a case (the outlier \
         did not reappear, so it was the machine's, and the repeat replaced it: {}; it \
         reappeared, so it is the placement's and stays: {}; mixed: {}). A cell whose pass \
         was replaced is decided only with the added passes, by their rule: a re-drawn pass \
         alone never turns a disagreement into a verdict.",
        set.repeats
            .iter()
            .filter(|r| !matches!(r.reason, RepeatReason::Outlier))
            .count(),
        count(false, RepeatOutcome::Machine),
        set.repeats
            .iter()
            .filter(|r| matches!(r.reason, RepeatReason::Outlier))
            .count(),
        count(true, RepeatOutcome::Machine),
        count(true, RepeatOutcome::Placement),
        count(true, RepeatOutcome::Mixed),
    );
    if let Some((listed, _)) = placements(set) {
        text.push_str(&format!(
            "\n\n{listed} cells were really different in their placement (the outlier came back \
             with the same code layout, stack and heap offsets and orders): the details list \
             them with the seed that reproduces each."
        ));
    }
    text
}

/// The cells whose outlier came back when their pass was run again with the same seed: how
/// many, and the table of them with their pass and seed (`--seed` reproduces them); `None` when
/// there are none.
pub fn placements(set: &ResultSet) -> Option<(usize, Table)> {
    let passes = set.timing.map_or(0, |t| t.passes);
    let mut table = Table::new()
        .column("Cell", Align::Left)
        .column("pass (seed)", Align::Right)
        .column("ratio in that pass", Align::Right)
        .column("again, same seed", Align::Right);
    let mut listed = 0;
    for repeat in set
        .repeats
        .iter()
        .filter(|r| r.outcome != RepeatOutcome::Machine)
    {
        for cell in repeat.cells.iter().filter(|c| c.outlier_again) {
            listed += 1;
            table.row(vec![
                format!("`{}` ({})", cell.id, cell.metric.unit()),
                format!("{} of {passes} ({})", repeat.pass, repeat.seed),
                format!("{:.2}×", cell.first),
                format!("{:.2}×", cell.again),
            ]);
        }
    }
    (listed > 0).then_some((listed, table))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{PassRepeat, Record, RepeatedCell};

    fn passes(cell: &str, parameter: &str, values: &[f64]) -> Record {
        Record::from_passes(
            BenchId::spelled("op", cell, parameter),
            Metric::NsPerOp,
            values.to_vec(),
        )
    }

    #[test]
    fn slowed_twins_count_as_detected_only_when_called_slower() {
        let base = [10.0, 12.0, 10.0, 12.0, 10.0, 12.0, 10.0, 12.0];
        let by = |k: f64| base.map(|v| v * k);
        let mut noisy = by(1.05);
        noisy[2] = 9.0;
        let set = crate::record::fixtures::set(vec![
            passes("base", "small", &base),
            passes("base-slowed-5", "small", &noisy),
            passes("base-slowed-10", "small", &by(1.1)),
            passes("base", "shared", &base),
            passes("base-slowed-10", "shared", &by(0.9)),
        ]);
        let single = |id: &BenchId| id.parameter == "small";
        let found = detections(&set, "base", single);
        assert_eq!(
            found[0].1,
            Detection {
                rows: 1,
                detected: 0,
                wrong_way: 0
            }
        );
        assert_eq!(found[0].2.len(), 1);
        assert_eq!(found[0].2[0].0, BenchId::new("op", "base", "small"));
        // A row whose 10 % twin is missed lists both twins' passes: the measured reason.
        let mut noisy_10 = by(1.1);
        noisy_10[5] = 11.0;
        let missing = crate::record::fixtures::set(vec![
            passes("base", "small", &base),
            passes("base-slowed-10", "small", &noisy_10),
            passes("base-again", "small", &by(1.0)),
        ]);
        let summary = power_text(&missing, "base", &single);
        assert!(summary.contains("1 single-threaded rows did not detect a 10 % slowdown"));
        let missed = undetected(&missing, "base", &single).unwrap();
        assert!(
            missed.contains(
                "- `op/base/small`: slowed 1.10× [1.10, 1.10], 7 of 8 passes slower; A/A twin \
                 1.00× [1.00, 1.00], 0 of 8 passes slower"
            ),
            "{missed}"
        );
        assert_eq!(
            found[1].1,
            Detection {
                rows: 1,
                detected: 1,
                wrong_way: 0
            }
        );
        let shared = detections(&set, "base", |id| !single(id));
        assert_eq!(shared[1].1.wrong_way, 1);
        let text = power_text(&set, "base", &single);
        assert!(
            text.contains("| 10 % | 1 of 1 (100.0 %) | 0 of 1 (0.0 %) | 1 |"),
            "{text}"
        );
        assert!(!text.contains("did not detect a 10 %"), "{text}");
        assert!(undetected(&set, "base", &single).is_none());
        assert!(
            power_text(&crate::record::fixtures::set(vec![]), "base", &single)
                .contains("No slowed twin")
        );
    }

    #[test]
    fn repeats_are_summed_up_and_kept_placements_listed_with_their_seed() {
        let mut set = crate::record::fixtures::set(vec![]);
        assert!(repeats_text(&set).contains("No pass was run again"));
        let cell = |again: f64, outlier_again: bool| RepeatedCell {
            id: BenchId::new("op", "fast", "small"),
            metric: Metric::NsPerOp,
            first: 1.21,
            again,
            outlier_again,
        };
        set.repeats = vec![
            PassRepeat {
                pass: 4,
                seed: 103,
                cases: vec!["op/small".into()],
                reason: RepeatReason::Outlier,
                cells: vec![cell(0.8, false)],
                outcome: RepeatOutcome::Machine,
            },
            PassRepeat {
                pass: 7,
                seed: 106,
                cases: vec!["op/small".into()],
                reason: RepeatReason::Outlier,
                cells: vec![cell(1.19, true)],
                outcome: RepeatOutcome::Placement,
            },
            PassRepeat {
                pass: 2,
                seed: 101,
                cases: vec![],
                reason: RepeatReason::Disturbed {
                    steal_share: 0.08,
                    again: 0.01,
                },
                cells: vec![],
                outcome: RepeatOutcome::Machine,
            },
        ];
        let text = repeats_text(&set);
        assert!(
            text.contains("1 disturbed passes") && text.contains("1 repeats less"),
            "{text}"
        );
        assert!(
            text.contains("replaced it: 1; it reappeared, so it is the placement's and stays: 1"),
            "{text}"
        );
        assert!(text.contains("1 cells were really different"), "{text}");
        let (listed, table) = placements(&set).unwrap();
        let table = table.render();
        assert_eq!(listed, 1);
        assert!(
            table.contains("| `op/fast/small` (ns/op) | 7 of 0 (106) | 1.21× | 1.19× |"),
            "{table}"
        );
    }
}
