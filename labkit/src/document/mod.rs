//! A report as a lab declares it and the kit assembles it.
//!
//! A lab says what its report holds ([`Document`]): its answers file, two pages of prose
//! templates (the report a reviewer reads, and the details: every table of every experiment)
//! whose `{{slots}}` are [`Block`]s — comparison tables with their rows, latency tables, cost
//! splits, checked targets — and its charts. [`render`] builds the rest the same way for every
//! lab: the environment header, the answers, how far the verdicts can be trusted, the chart
//! links, the derived records, and the per-id appendix. Data flows one way: the result set, the
//! lab's derived records, the lab's declaration, markdown.

mod blocks;
mod charts;
mod sections;
mod settings;
pub use charts::ChartSpec;
pub use settings::Prose;

use blocks::Blocks;

use crate::answers::Answers;
use crate::chart::Chart;
use crate::lab::{Describe, Lab};
use crate::record::{Metric, ResultSet, RunMode};
use crate::report::{Row, environment_section, joined_table};
use crate::targets::{TargetSection, Targets};
use crate::template;

/// What a lab's report holds.
#[derive(Default)]
pub struct Document {
    /// The lab's own checks of its run, closing the trust section (a ceiling that holds, samples
    /// that hold their rounds): markdown under a heading of the kit's.
    pub trust: Option<Block>,
    /// The report: what a reviewer reads (about 40 KB at most).
    pub main: Page,
    /// Every other table, in `<lab>-details.md`, followed by every id's measurements.
    pub details: Page,
    pub charts: Vec<ChartSpec>,
    /// The workload's settings the prose names (users, deadlines, sizes), taken from the code
    /// that ran so that no template types them: `{{ name }}` in any page or measured block
    /// ([`crate::settings!`]; the kit adds its own, [`settings::kit`]).
    pub settings: Vec<(&'static str, String)>,
    /// The lab's targets files checked against the run, each placed by the name it is given:
    /// `{{ targets(NAME) }}` (every target), `{{ target_misses(NAME) }}` (how many were met, and
    /// the missed ones), `{{ targets_source(NAME) }}`, `{{ targets_notes(NAME) }}`.
    pub targets: Vec<TargetSection>,
    /// Groups of the lab's cases a page's template loops over, each item a few named fields
    /// (`{% for shape in shapes %}{{ table('ops-per-sec', shape.name) }}{% endfor %}`).
    pub groups: Vec<(&'static str, Vec<template::Item<'static>>)>,
}

/// A prose template ([`crate::template`]) and what fills its `{{ slots }}`.
#[derive(Default)]
pub struct Page {
    pub template: String,
    pub blocks: Vec<(String, Block)>,
}

impl Page {
    pub fn new(template: impl Into<String>) -> Self {
        Self {
            template: template.into(),
            blocks: Vec::new(),
        }
    }

    /// Fills `{{slot}}` with `block`.
    pub fn with(mut self, slot: impl Into<String>, block: Block) -> Self {
        self.blocks.push((slot.into(), block));
        self
    }

    /// Fills each slot with its block.
    pub fn blocks(self, blocks: Vec<(&str, Block)>) -> Self {
        blocks
            .into_iter()
            .fold(self, |page, (slot, block)| page.with(slot, block))
    }
}

/// One generated part of a page.
pub enum Block {
    /// A comparison table of `metric` over the lab's implementations, one line per row.
    Table(Metric, Vec<Row>),
    /// A latency-percentile table per row, each headed `Latency of one {operation} · {row}`, then
    /// the timer's own cost that every recorded latency includes.
    Latencies {
        operation: String,
        rows: Vec<Row>,
    },
    /// Where each implementation's counted instructions go, per row ([`crate::callgrind`]).
    CostSplit(Vec<Row>),
    Markdown(String),
    /// A template whose value functions (`{{ v("METRIC@ID") }}`) print this run's values
    /// ([`crate::answers::fill_measured`]).
    Measured(String),
}

/// The assembled report.
pub struct Rendered {
    pub main: String,
    pub details: String,
    pub charts: Vec<Chart>,
}

/// A lab with a report: what its report holds, which the kit assembles ([`render`]). A trait of
/// its own, above [`Lab`], so that the description and the measurement know nothing of reports.
pub trait LabReport: Lab {
    /// What the report holds; `set` includes the lab's derived records.
    fn report(&self, set: &ResultSet) -> Document;

    /// The write-up's claims the lab answers, for the cases they name
    /// ([`Describe::claimed_cases`](crate::lab::Describe::claimed_cases)).
    fn answers(&self) -> Option<Answers> {
        None
    }

    /// The experiments, with their parameters, a target's `experiment` stands for: by default
    /// the lab's experiment or derived experiment of that name
    /// ([`crate::targets::target_experiments`]).
    fn target_experiments(&self, selector: &str) -> Vec<(String, Vec<String>)> {
        crate::targets::target_experiments(self, selector)
    }
}

/// `targets` checked against `set` with `lab`'s [`LabReport::target_experiments`], placed under
/// `name` ([`Document::targets`]).
pub fn target_section(
    lab: &dyn LabReport,
    name: &'static str,
    set: &ResultSet,
    targets: &Targets,
) -> TargetSection {
    TargetSection::new(name, set, targets, |s| lab.target_experiments(s))
}

/// What `lab` says about itself, its claimed cases included: what its `lab` binary tells the
/// driver.
pub fn description(lab: &dyn LabReport) -> crate::lab::Description {
    crate::lab::Description {
        claimed_cases: lab.answers().map(|a| a.claimed_cases()).unwrap_or_default(),
        ..crate::lab::Description::of(lab)
    }
}

/// The file name of a lab's details page.
pub fn details_file(lab: &dyn Describe) -> String {
    format!("{}-details.md", lab.name())
}

/// `set` with `lab`'s derived records added.
pub fn with_derived(lab: &dyn Lab, mut set: ResultSet) -> ResultSet {
    let derived = lab.derived(&set);
    // A derived value that is not a finite number (a division by a zero the lab did not guard)
    // would be written as JSON null, which no result set reads back: it is left out.
    set.records
        .extend(derived.into_iter().filter(|r| r.value.is_finite()));
    set
}

/// What a quick run given no names measured: the lab's quick selection, not every case.
fn quick_selection_note(lab: &dyn LabReport, set: &ResultSet) -> String {
    let selection = lab.quick_selection();
    let filtered = set
        .timing
        .and_then(|t| t.stage_seconds)
        .is_some_and(|s| s.filtered);
    if set.mode != RunMode::Quick || selection.is_empty() || filtered {
        return String::new();
    }
    let names: Vec<String> = selection.iter().map(|n| format!("`{n}`")).collect();
    format!(
        "A quick run measures the lab's quick selection only ({}); `cargo xtask bench {}` \
         measures every case.\n\n",
        names.join(", "),
        lab.name()
    )
}

/// `lab`'s report on `set`, with the lab's derived records added first.
pub fn render(lab: &dyn LabReport, set: &ResultSet) -> Result<Rendered, String> {
    let set = with_derived(lab, set.clone());
    let document = lab.report(&set);
    let implementations = lab.implementations();
    let baselines = crate::lab::baselines(lab);
    let settings = [settings::kit(), document.settings.clone()].concat();
    let blocks = Blocks {
        set: &set,
        implementations: &implementations,
        baselines: &baselines,
        settings: &settings,
        targets: &document.targets,
        charts: &document.charts,
    };
    let cores = set.environment.cores;
    let resolve = |call: &template::Call| blocks.called(lab, cores, call);
    let page = |page: &Page| -> Result<String, String> {
        let values: Vec<(&str, String)> = page
            .blocks
            .iter()
            .map(|(slot, block)| (slot.as_str(), blocks.markdown(block)))
            .collect();
        template::render_looped(
            &page.template,
            &values,
            &settings,
            &document.groups,
            Some(&resolve),
        )
    };
    let body = page(&document.main)?;
    let details_body = page(&document.details)?;
    // Latency curves, one per row, are linked from the details; the rest from the main page too.
    let per_row: Vec<bool> = document
        .charts
        .iter()
        .map(|spec| matches!(spec, ChartSpec::Latency { .. }))
        .collect();
    let charts: Vec<Chart> = document
        .charts
        .iter()
        .map(|spec| spec.draw(&set, &implementations))
        .collect();
    let quick = quick_selection_note(lab, &set);
    let header = |subtitle: &str, opening: &str| {
        format!(
            "# {}{subtitle}\n\n_Generated by `cargo xtask bench` from `{}.json`; do not edit by \
             hand._\n\n{opening}{}\n{quick}",
            lab.title(),
            lab.name(),
            environment_section(&set)
        )
    };
    let claims = lab.answers().map(|mut answers| {
        if let Some(side) = &mut answers.jvm {
            side.benchmarks = lab.jvm();
        }
        answers
    });
    let verdict = claims
        .as_ref()
        .and_then(|a| crate::answers::verdict_paragraph(a, &set))
        .map_or(String::new(), |p| format!("{p}\n\n"));
    let checked = claims.as_ref().map(|a| a.check(&set));
    let answers = checked.as_ref().map_or(String::new(), |c| {
        format!("## Answers\n\n{}\n\n", c.markdown)
    });
    let calibration = checked.map(|c| c.details).unwrap_or_default();
    let trust = document.trust.as_ref().map(|block| blocks.markdown(block));
    let verdicts = sections::trust(lab, &set, &baselines, trust);
    let (links, latency_links) = sections::chart_links(&charts, &per_row);
    let details_link = format!(
        "Every table of every experiment, the latency percentiles and each id's measurements are \
         in [`{0}`]({0}); the raw data, with every pass and histogram, in `{1}.json`.\n\n",
        details_file(lab),
        lab.name()
    );
    let main = format!(
        "{}\n{answers}{verdicts}## Charts\n\n{links}\n{details_link}{body}",
        header("", &verdict)
    );
    let appendix = sections::appendix(lab, &set, &baselines);
    let case_time = format!("{calibration}{latency_links}{appendix}");
    let details = format!(
        "{}\nThe same run as [`{}.md`]({}.md), whose answers and verdict rules these tables \
         follow.\n\n{details_body}\n{case_time}## All measurements by id\n\n{}",
        header(": every table", ""),
        lab.name(),
        lab.name(),
        joined_table(&set).render()
    );
    Ok(Rendered {
        main,
        details,
        charts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::TINY;
    use crate::record::{BenchId, EventName, Record, RunMode};

    #[test]
    fn the_kit_assembles_header_answers_and_both_pages() {
        let record = |metric: Metric, value: f64| {
            Record::new(BenchId::new("op", "fast", "small"), metric, value)
        };
        let set = ResultSet {
            mode: RunMode::Smoke,
            ..crate::record::fixtures::set(vec![
                record(Metric::InstructionsPerOp, 200.0),
                record(Metric::InstructionsIn(EventName::new("allocator")), 50.0),
            ])
        };
        let rendered = render(&TINY, &set).unwrap();
        assert!(rendered.main.starts_with("# tiny\n"), "{}", rendered.main);
        assert!(rendered.main.contains("| Mode | smoke"));
        assert!(
            rendered
                .main
                .contains("[`tiny-details.md`](tiny-details.md)")
        );
        assert!(
            rendered
                .main
                .contains("| `op` · `small` | `fast` | 200.0 | 50.0 (25 %) |"),
            "{}",
            rendered.main
        );
        assert!(rendered.details.starts_with("# tiny: every table\n"));
        assert!(rendered.details.contains("## All measurements by id"));
        assert_eq!(rendered.charts.len(), 1);
    }

    #[test]
    fn a_paired_table_puts_each_row_above_its_match_and_refuses_unequal_sides() {
        let id = BenchId::new("op", "fast", "small");
        let set = crate::record::fixtures::set(vec![Record::new(id, Metric::NsPerOp, 10.0)]);
        let baselines = crate::lab::baselines(&TINY);
        let implementations = TINY.implementations();
        let blocks = Blocks {
            set: &set,
            implementations: &implementations,
            baselines: &baselines,
            settings: &[],
            targets: &[],
            charts: &[],
        };
        let paired = |a: &str, b: &str| {
            let args = ["ns-per-op", a, b, "here", "there"];
            let call = template::Call {
                function: "paired",
                args: args.map(String::from).to_vec(),
            };
            blocks.called(&TINY, 2, &call)
        };
        let table = paired("op", "cleanup@op").unwrap();
        let labels: Vec<&str> = table
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(|l| match l.contains("— here |") {
                true => "here",
                false if l.contains("— there |") => "there",
                false => l,
            })
            .collect();
        assert_eq!(labels, ["here", "there", "here", "there"], "{table}");
        let unequal = paired("op", "cleanup").unwrap_err();
        assert!(unequal.contains("select 2 and 1 rows"), "{unequal}");
    }
}
