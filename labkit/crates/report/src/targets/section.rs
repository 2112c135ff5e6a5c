//! A targets file checked against a run as a page places it, and what a target's experiment
//! stands for in a lab without derived experiments.

use super::{Checked, Targets, check, table};
use crate::record::ResultSet;

/// What a target's `experiment` stands for when it names one of `lab`'s own experiments: that
/// experiment and its parameters (a lab with derived or grouped experiments maps those itself).
pub fn own_experiment(lab: &dyn crate::lab::Describe, name: &str) -> Vec<(String, Vec<String>)> {
    crate::lab::experiment(lab, name)
        .map(|e| {
            let parameters = e.parameters.iter().map(|p| p.name.clone()).collect();
            vec![(name.to_owned(), parameters)]
        })
        .unwrap_or_default()
}

/// A targets file checked against a run, with the prose below it: what a page places under the
/// name the lab gives it ([`crate::document::Document::targets`]).
pub struct TargetSection {
    pub name: &'static str,
    /// Where the targets come from (markdown).
    pub source: String,
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
            source: targets.source.clone(),
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
