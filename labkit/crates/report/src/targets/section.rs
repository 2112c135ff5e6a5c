//! A targets file checked against a run as a page places it, and what a target's experiment
//! stands for.

use super::{Checked, Targets, check, table};
use crate::record::ResultSet;

/// What a target's `experiment` stands for by default: `lab`'s experiment of that name, or the
/// derived one of that name with the parameters of the experiment it comes from
/// ([`Describe::derived_from`](crate::lab::Describe::derived_from)); nothing for another name (a
/// lab with grouped selectors maps those itself, then calls this).
pub fn target_experiments<L: crate::lab::Describe + ?Sized>(
    lab: &L,
    name: &str,
) -> Vec<(String, Vec<String>)> {
    let source = lab.derived_from(name).unwrap_or(name);
    let experiment = lab.experiments().iter().find(|e| e.name == source);
    let parameters =
        |e: &crate::lab::Experiment| e.parameters.iter().map(|p| p.name.clone()).collect();
    experiment
        .map(|e| vec![(name.to_owned(), parameters(e))])
        .unwrap_or_default()
}

/// A targets file checked against a run, with the prose below it: what a page places under the
/// name the lab gives it ([`crate::document::Document::targets`]).
pub struct TargetSection {
    pub name: &'static str,
    /// The targets as the lab's file states them.
    pub spec: Targets,
    pub checked: Vec<Checked>,
    /// The measured column's heading.
    pub heading: String,
    /// Prose on the misses, a template that may print this run's values.
    pub notes: String,
}

impl TargetSection {
    /// `targets` checked against `set` as [`check`] does, headed `measured`, with no notes.
    pub fn new(
        name: &'static str,
        set: &ResultSet,
        targets: &Targets,
        experiments: impl Fn(&str) -> Vec<(String, Vec<String>)>,
    ) -> Self {
        Self {
            name,
            spec: targets.clone(),
            checked: check(set, targets, experiments),
            heading: "measured".into(),
            notes: String::new(),
        }
    }

    pub fn headed(self, heading: &str) -> Self {
        Self {
            heading: heading.into(),
            ..self
        }
    }

    pub fn with_notes(self, notes: &str) -> Self {
        Self {
            notes: notes.into(),
            ..self
        }
    }

    /// Every target as a table.
    pub fn table(&self) -> String {
        table(self.checked.clone(), &self.heading).render()
    }

    /// How many targets were met, then the missed ones as a table.
    pub fn misses(&self) -> String {
        let count = |met: Option<bool>| self.checked.iter().filter(|c| c.met == met).count();
        let missed: Vec<Checked> = self
            .checked
            .iter()
            .filter(|c| c.met == Some(false))
            .cloned()
            .collect();
        let summary = format!(
            "**{} of {} targets met**{}{}",
            count(Some(true)),
            self.checked.len(),
            match count(None) {
                0 => String::new(),
                n => format!(", {n} not measured"),
            },
            if missed.is_empty() { "." } else { "; missed:" }
        );
        if missed.is_empty() {
            format!("{summary}\n")
        } else {
            format!("{summary}\n\n{}", table(missed, &self.heading).render())
        }
    }
}
