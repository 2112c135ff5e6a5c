//! Targets a lab states once, in a JSON file beside its report template, checked against one run:
//! a metric of one design, or its ratio to another design on the same id (the median of the
//! per-pass ratios, [`crate::compare`]), at most or at least a bound. A missed target is shown as
//! missed, by how much in the measured column; a target with nothing measured says so.

use serde::Deserialize;

mod section;
pub use section::{TargetSection, target_experiments};

use crate::compare::compare_in;
use crate::record::{BenchId, FLOOR, Metric, Quantity, ResultSet, RunMode};
use crate::report::{format_duration, format_metric};
use crate::table::{Align, Table, format_bytes, format_count, format_number};
use crate::template;

/// A lab's targets file.
#[derive(Debug, Clone, Deserialize)]
pub struct Targets {
    /// The design the targets are about, unless a target names another.
    pub implementation: String,
    /// Where the targets come from, for the report's heading.
    pub source: String,
    pub targets: Vec<TargetSpec>,
    /// Bounds on how long the lab's own run takes, by mode.
    #[serde(default)]
    pub run_time: Vec<RunTimeTarget>,
}

/// A bound on the seconds a run of one mode spends measuring (its stages, after the build), as
/// the driver timed them; checked on a report of that mode only.
#[derive(Debug, Clone, Deserialize)]
pub struct RunTimeTarget {
    pub what: String,
    pub mode: RunMode,
    pub at_most_seconds: f64,
}

impl RunTimeTarget {
    fn check(&self, set: &ResultSet) -> Checked {
        let stages = set.timing.and_then(|t| t.stage_seconds);
        let (measured, met) = match stages {
            _ if set.mode != self.mode => (
                format!("not measured (a {} run)", mode_name(set.mode)),
                None,
            ),
            Some(stages) if stages.filtered => ("not measured (a filtered run)".to_owned(), None),
            None => ("not measured".to_owned(), None),
            Some(stages) => {
                let total = stages.total();
                let shown = |s: f64| format_count(s.round() as u64);
                let longest = crate::report::case_seconds(set)
                    .first()
                    .map(|(case, s)| format!("; its longest case `{case}` {} s", shown(*s)))
                    .unwrap_or_default();
                (
                    format!(
                        "{} s (allocation {} s, instruction counts {} s, wall time {} s{longest})",
                        shown(total),
                        shown(stages.allocation),
                        shown(stages.instructions),
                        shown(stages.wall_time)
                    ),
                    Some(total <= self.at_most_seconds),
                )
            }
        };
        let fields = [("at_most", show_seconds(self.at_most_seconds))];
        Checked {
            what: template::render_fields(&self.what, &fields).unwrap_or_else(|e| e),
            measured,
            met,
        }
    }
}

/// A bound on a run's time as its target states it: whole minutes in minutes.
fn show_seconds(seconds: f64) -> String {
    if seconds >= 60.0 && seconds % 60.0 == 0.0 {
        format!("{} min", seconds / 60.0)
    } else {
        format!("{seconds} s")
    }
}

fn mode_name(mode: RunMode) -> &'static str {
    match mode {
        RunMode::Full => "full",
        RunMode::Quick => "quick",
        RunMode::Smoke => "smoke",
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct TargetSpec {
    /// How the row reads, a template: `{{ experiment }}` and `{{ parameter }}` are filled in.
    pub what: String,
    /// An experiment, or a group of experiments the lab resolves (see [`check`]).
    pub experiment: String,
    /// The parameters checked, one row each; empty: all of the experiment's.
    #[serde(default)]
    pub parameters: Vec<String>,
    /// One row per experiment: the worst (highest) of its parameters.
    #[serde(default)]
    pub worst: bool,
    /// The design checked, when not the file's `implementation`.
    #[serde(default)]
    pub implementation: Option<String>,
    /// Checked as a ratio to this design on the same id: the median of the per-pass ratios.
    #[serde(default)]
    pub versus: Option<String>,
    pub metric: Metric,
    /// Shown after the value instead of the metric's own unit (derived values, e.g. `B/entry`).
    #[serde(default)]
    pub unit: Option<String>,
    /// Checked on the design's value less the harness floor's on the same id (and, with
    /// `versus`, as the ratio of the two net values): the design's own cost.
    #[serde(default)]
    pub net_of_floor: bool,
    #[serde(default)]
    pub at_most: Option<f64>,
    #[serde(default)]
    pub at_least: Option<f64>,
}

impl Targets {
    pub fn parse(json: &str) -> Result<Self, String> {
        let targets: Self = serde_json::from_str(json).map_err(|e| format!("targets file: {e}"))?;
        for spec in &targets.targets {
            template::render_fields(&spec.what, &spec.fields("x", "x"))
                .map_err(|e| format!("targets file: `{}`: {e}", spec.what))?;
        }
        for target in &targets.run_time {
            template::render_fields(&target.what, &[("at_most", String::new())])
                .map_err(|e| format!("targets file: `{}`: {e}", target.what))?;
        }
        Ok(targets)
    }
}

impl TargetSpec {
    /// What a row's text may print: its experiment and parameter, and the bounds as the spec
    /// states them (a duration or a size in its unit, any other number as written).
    fn fields(&self, experiment: &str, parameter: &str) -> Vec<(&'static str, String)> {
        let mut fields = vec![
            ("experiment", experiment.to_owned()),
            ("parameter", parameter.to_owned()),
        ];
        for (name, bound) in [("at_most", self.at_most), ("at_least", self.at_least)] {
            if let Some(bound) = bound {
                fields.push((name, self.show_bound(bound)));
            }
        }
        fields
    }

    fn show_bound(&self, bound: f64) -> String {
        if self.versus.is_some() || self.unit.is_some() {
            return bound.to_string();
        }
        match self.metric.facts().quantity {
            Quantity::Nanoseconds => format_duration(bound),
            Quantity::Bytes => format_bytes(bound),
            Quantity::Count => bound.to_string(),
        }
    }

    fn met(&self, value: f64) -> bool {
        self.at_most.is_none_or(|m| value <= m) && self.at_least.is_none_or(|m| value >= m)
    }

    fn show(&self, value: f64) -> String {
        match (&self.versus, &self.unit, self.metric) {
            (Some(versus), _, _) => format!("{}× `{versus}`", format_number(value)),
            (None, Some(unit), _) => format!("{} {unit}", format_number(value)),
            (None, None, Metric::RetainedBytes | Metric::RetainedUsableBytes) => {
                format_bytes(value)
            }
            // A duration carries its own unit.
            (None, None, m) if m.is_latency_percentile() => format_metric(m, value),
            (None, None, m) => format!("{} {}", format_metric(m, value), m.unit()),
        }
    }
}

/// One target checked against the measured value.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub what: String,
    pub measured: String,
    /// `None`: nothing measured.
    pub met: Option<bool>,
}

/// Every target of `targets` checked against `set`. `experiments(name)` lists the experiments a
/// target's `experiment` stands for (itself, or a group the lab defines), each with its
/// parameters; records of derived experiments (values per entry, differences) belong in `set`.
pub fn check(
    set: &ResultSet,
    targets: &Targets,
    experiments: impl Fn(&str) -> Vec<(String, Vec<String>)>,
) -> Vec<Checked> {
    let mut out = Vec::new();
    for spec in &targets.targets {
        let implementation = spec
            .implementation
            .as_deref()
            .unwrap_or(&targets.implementation);
        for (experiment, all_parameters) in experiments(&spec.experiment) {
            let parameters = if spec.parameters.is_empty() {
                all_parameters
            } else {
                spec.parameters.clone()
            };
            // The checked value: the design's own, or its ratio to `versus`.
            let value = |parameter: &str| {
                let find = |design: &str| {
                    set.find(&BenchId::new(&experiment, design, parameter), spec.metric)
                };
                let mine = find(implementation)?;
                if spec.net_of_floor {
                    let floor = find(FLOOR)?.value;
                    return match &spec.versus {
                        Some(versus) => Some((mine.value - floor) / (find(versus)?.value - floor)),
                        None => Some(mine.value - floor),
                    };
                }
                match &spec.versus {
                    Some(versus) => Some(compare_in(set, find(versus)?, mine).ratio),
                    None => Some(mine.value),
                }
            };
            let mut row = |parameter: &str, found: Option<f64>| {
                let fields = spec.fields(&experiment, parameter);
                let what = template::render_fields(&spec.what, &fields).unwrap_or_else(|e| e);
                out.push(Checked {
                    what,
                    measured: found.map_or_else(|| "not measured".into(), |v| spec.show(v)),
                    met: found.map(|v| spec.met(v)),
                });
            };
            if spec.worst {
                let worst = parameters
                    .iter()
                    .filter_map(|p| value(p))
                    .max_by(f64::total_cmp);
                row("", worst);
            } else {
                for parameter in &parameters {
                    row(parameter, value(parameter));
                }
            }
        }
    }
    out.extend(targets.run_time.iter().map(|t| t.check(set)));
    out
}

/// The checked targets as a table; the measured column is headed `measured`.
pub fn table(checked: Vec<Checked>, measured: &str) -> Table {
    let mut table = Table::new()
        .column("Target", Align::Left)
        .column(measured, Align::Right)
        .column("Met?", Align::Left);
    for t in checked {
        let met = match t.met {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "—",
        };
        table.row(vec![t.what, t.measured, met.into()]);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Record, RunMode};

    fn set(records: Vec<Record>) -> ResultSet {
        ResultSet {
            mode: RunMode::Smoke,
            ..crate::record::fixtures::set(records)
        }
    }

    fn ns(implementation: &str, parameter: &str, value: f64) -> Record {
        Record::new(
            BenchId::new("op", implementation, parameter),
            Metric::NsPerOp,
            value,
        )
    }

    const FILE: &str = r#"{
        "implementation": "fast",
        "source": "a test",
        "targets": [
            {"what": "op `{{ parameter }}` ≤ 10 ns", "experiment": "op", "metric": "ns-per-op", "at_most": 10},
            {"what": "op `{{ parameter }}` ≤ 1/2 of base", "experiment": "op", "parameters": ["a"], "metric": "ns-per-op", "versus": "base", "at_most": 0.5},
            {"what": "{{ experiment }}: worst ≤ 10 ns", "experiment": "every", "worst": true, "metric": "ns-per-op", "at_most": 10},
            {"what": "per entry `{{ parameter }}`", "experiment": "op", "parameters": ["a"], "metric": "ns-per-op", "unit": "B/entry", "at_least": 1},
            {"what": "op `{{ parameter }}` net ≤ 5 ns", "experiment": "op", "parameters": ["a", "b"], "metric": "ns-per-op", "net_of_floor": true, "at_most": 5},
            {"what": "op `{{ parameter }}` net ≤ 1/2 of base's", "experiment": "op", "parameters": ["a"], "metric": "ns-per-op", "net_of_floor": true, "versus": "base", "at_most": 0.5}
        ],
        "run_time": [
            {"what": "a smoke run ≤ {{ at_most }}", "mode": "smoke", "at_most_seconds": 60},
            {"what": "a quick run ≤ {{ at_most }}", "mode": "quick", "at_most_seconds": 120}
        ]
    }"#;

    #[test]
    fn a_section_counts_what_was_met_and_lists_only_the_misses() {
        let targets = Targets::parse(FILE).unwrap();
        let experiments = |name: &str| match name {
            "op" => vec![("op".to_owned(), vec!["a".to_owned(), "b".to_owned()])],
            _ => vec![],
        };
        let s = set(vec![ns("fast", "a", 8.0), ns("fast", "b", 12.0)]);
        let section = TargetSection::new("t", &s, &targets, experiments)
            .headed("fast")
            .with_notes("why");
        assert_eq!(
            (section.spec.source.as_str(), section.notes.as_str()),
            ("a test", "why")
        );
        let misses = section.misses();
        let met = section
            .checked
            .iter()
            .filter(|c| c.met == Some(true))
            .count();
        let unmeasured = section.checked.iter().filter(|c| c.met.is_none()).count();
        assert!(
            misses.starts_with(&format!(
                "**{met} of {} targets met**, {unmeasured} not measured; missed:",
                section.checked.len()
            )),
            "{misses}"
        );
        assert!(
            misses.contains("| op `b` ≤ 10 ns | 12.0 ns/op | **no** |"),
            "{misses}"
        );
        assert!(
            !misses.contains("op `a` ≤ 10 ns"),
            "a met target is not listed"
        );
        assert!(section.table().contains("| Target | fast | Met? |"));
        assert!(section.table().contains("op `a` ≤ 10 ns"));
    }

    #[test]
    fn targets_are_met_missed_or_not_measured() {
        let targets = Targets::parse(FILE).unwrap();
        let mut s = set(vec![
            ns("fast", "a", 8.0),
            ns("fast", "b", 12.0),
            ns("base", "a", 20.0),
            ns(FLOOR, "a", 4.0),
            Record::new(
                crate::measure::case_time_id(&crate::lab::BenchCase::new("op", "a")),
                Metric::CaseSeconds,
                30.2,
            ),
            Record::new(
                crate::measure::case_time_id(&crate::lab::BenchCase::new("op", "b")),
                Metric::CaseSeconds,
                12.0,
            ),
        ]);
        s.timing = Some(crate::record::TimingMethod {
            first_seed: 1,
            passes: 2,
            rounds: 1,
            sample_ns: 0,
            link_order: crate::record::LinkOrder::ShuffledPerPass,
            extended_passes: 2,
            same_within: None,
            stage_seconds: Some(crate::record::StageSeconds {
                allocation: 20.0,
                instructions: 0.0,
                wall_time: 50.4,
                jvm: 0.0,
                filtered: false,
            }),
        });
        let experiments = |name: &str| match name {
            "op" | "every" => vec![(
                "op".to_owned(),
                vec!["a".to_owned(), "b".to_owned(), "c".to_owned()],
            )],
            _ => vec![],
        };
        let checked = check(&s, &targets, experiments);
        let met: Vec<(&str, Option<bool>)> = checked
            .iter()
            .map(|c| (c.measured.as_str(), c.met))
            .collect();
        assert_eq!(
            met,
            [
                ("8.00 ns/op", Some(true)),
                ("12.0 ns/op", Some(false)),
                ("not measured", None),
                ("0.400× `base`", Some(true)),
                ("12.0 ns/op", Some(false)),
                ("8.00 B/entry", Some(true)),
                ("4.00 ns/op", Some(true)),
                // The floor was not measured on `b`: no net value.
                ("not measured", None),
                ("0.250× `base`", Some(true)),
                // A smoke run's 70 s, against its bound; the quick bound is another run's.
                (
                    "70 s (allocation 20 s, instruction counts 0 s, wall time 50 s; its longest \
                     case `op/a` 30 s)",
                    Some(false)
                ),
                ("not measured (a smoke run)", None),
            ]
        );
        assert_eq!(checked[0].what, "op `a` ≤ 10 ns");
        // A run filtered to some cases does not time the lab.
        if let Some(stages) = s.timing.as_mut().and_then(|t| t.stage_seconds.as_mut()) {
            stages.filtered = true;
        }
        let filtered = check(&s, &targets, experiments);
        assert_eq!(filtered[9].measured, "not measured (a filtered run)");
        assert_eq!(filtered[9].met, None);
        assert_eq!(checked[4].what, "op: worst ≤ 10 ns");
        let rendered = table(checked, "fast").render();
        assert!(
            rendered.contains("| **no** |") && rendered.contains("| — |"),
            "{rendered}"
        );
        assert!(
            Targets::parse("{")
                .unwrap_err()
                .starts_with("targets file:")
        );
    }
}
