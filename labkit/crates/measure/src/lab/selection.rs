//! A lab's vocabulary, the selection the command line makes of it, and the cases and ids it
//! derives.

use super::{BenchCase, Describe, Experiment, Parameter, experiment, measures};
use crate::record::{BenchId, RunMode, reference_roles};

/// The names of a lab's three id dimensions, each in order and without repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vocabulary {
    pub implementations: Vec<String>,
    pub experiments: Vec<String>,
    pub parameters: Vec<String>,
}

impl Vocabulary {
    pub fn of(lab: &dyn Describe) -> Self {
        let experiments = lab.experiments();
        let mut parameters: Vec<String> = Vec::new();
        for p in experiments.iter().flat_map(|e| &e.parameters) {
            if !parameters.contains(&p.name) {
                parameters.push(p.name.clone());
            }
        }
        Self {
            implementations: lab
                .implementations()
                .iter()
                .map(|s| s.to_string())
                .collect(),
            experiments: experiments.iter().map(|e| e.name.to_owned()).collect(),
            parameters,
        }
    }

    pub fn contains(&self, word: &str) -> bool {
        [&self.implementations, &self.experiments, &self.parameters]
            .iter()
            .any(|names| names.iter().any(|n| n == word))
    }

    /// The valid names, grouped, one dimension per line.
    pub fn listing(&self) -> String {
        format!(
            "  implementations: {}\n  experiments: {}\n  parameters: {}",
            self.implementations.join(", "),
            self.experiments.join(", "),
            self.parameters.join(", ")
        )
    }
}

/// Which ids a list of filter words selects: within a dimension the named values, a dimension
/// none of whose names was given is not filtered.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selection {
    pub implementations: Vec<String>,
    pub experiments: Vec<String>,
    pub parameters: Vec<String>,
}

impl Selection {
    /// The selection `words` make in `lab`; an unknown word is an error listing the lab's valid
    /// names by dimension.
    pub fn parse(lab: &dyn Describe, words: &[String]) -> Result<Self, String> {
        let vocabulary = Vocabulary::of(lab);
        let mut selection = Self::default();
        for word in words {
            let mut known = false;
            for (names, chosen) in [
                (&vocabulary.implementations, &mut selection.implementations),
                (&vocabulary.experiments, &mut selection.experiments),
                (&vocabulary.parameters, &mut selection.parameters),
            ] {
                if names.contains(word) {
                    known = true;
                    if !chosen.contains(word) {
                        chosen.push(word.clone());
                    }
                }
            }
            if !known {
                return Err(format!(
                    "unknown name `{word}` in lab {}; valid names:\n{}",
                    lab.name(),
                    vocabulary.listing()
                ));
            }
        }
        Ok(selection)
    }

    pub fn is_everything(&self) -> bool {
        self.implementations.is_empty() && self.experiments.is_empty() && self.parameters.is_empty()
    }

    fn picks(chosen: &[String], name: &str) -> bool {
        chosen.is_empty() || chosen.iter().any(|c| c == name)
    }

    pub fn selects_implementation(&self, implementation: &str) -> bool {
        Self::picks(&self.implementations, implementation)
    }

    pub fn selects_case(&self, experiment: &str, parameter: &str) -> bool {
        Self::picks(&self.experiments, experiment) && Self::picks(&self.parameters, parameter)
    }

    /// Whether `id` is selected; a reference cell (A/A twin, slowed twin) goes with its
    /// implementation.
    pub fn selects(&self, id: &BenchId) -> bool {
        self.selects_implementation(&id.implementation)
            && self.selects_case(&id.experiment, &id.parameter)
    }
}

/// The words a run of `mode` measures: those `given`, or, for a quick run given none, the lab's
/// [`Describe::quick_selection`].
pub fn run_words(lab: &dyn Describe, mode: RunMode, given: &[String]) -> Vec<String> {
    if mode == RunMode::Quick && given.is_empty() {
        lab.quick_selection()
            .into_iter()
            .map(str::to_owned)
            .collect()
    } else {
        given.to_vec()
    }
}

/// Every (experiment, parameter) case of `lab` that `keep` accepts, in description order.
pub fn cases(lab: &dyn Describe, keep: impl Fn(&Experiment, &Parameter) -> bool) -> Vec<BenchCase> {
    lab.experiments()
        .iter()
        .flat_map(|e| {
            e.parameters
                .iter()
                .filter(|p| keep(e, p))
                .map(|p| BenchCase::new(e.name, &p.name))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Whether `id`'s row runs on one thread (false for an id of no case of `lab`).
pub fn single_threaded(lab: &dyn Describe, id: &BenchId) -> bool {
    experiment(lab, &id.experiment)
        .ok()
        .and_then(|e| e.parameter(&id.parameter).map(|p| p.threads == 1))
        .unwrap_or(false)
}

/// The cases whose instructions are counted, in the order the instruction bench numbers them
/// (not those of an experiment that measures only some implementations).
pub fn counted_cases_of(lab: &dyn Describe) -> Vec<BenchCase> {
    cases(lab, |e, p| {
        e.is_timed() && p.counted && e.implementations.is_empty()
    })
}

/// Every id the wall-time stage measures: each timed case's implementations (those its
/// experiment measures) and the reference cells of each baseline measured on it (the lab's, and
/// the JVM designs' when they run it).
pub fn timed_ids(lab: &dyn Describe) -> Vec<BenchId> {
    let implementations = lab.implementations();
    let baselines = super::baselines(lab);
    let mut ids = Vec::new();
    for e in lab.experiments().iter().filter(|e| e.is_timed()) {
        for p in &e.parameters {
            let case = BenchCase::new(e.name, &p.name);
            let measured = implementations.iter().filter(|i| measures(lab, e, i));
            ids.extend(measured.map(|i| case.id(i)));
            for baseline in baselines.all().into_iter().filter(|b| measures(lab, e, b)) {
                ids.extend(
                    reference_roles()
                        .into_iter()
                        .map(|role| case.id(baseline).with_role(role)),
                );
            }
        }
    }
    ids
}
