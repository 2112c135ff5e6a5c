//! A lab's description as data: what its `lab` binary prints for `--describe`, and what the
//! driver reads instead of linking the lab.

use serde::{Deserialize, Deserializer, Serialize};

use super::{ClaimedCase, Describe, Experiment, JvmBenchmarks, Timing};
use crate::callgrind::Buckets;
use crate::record::RunMode;
use crate::tools::Tool;

/// Everything [`Describe`] says about a lab, with the timing of every run mode.
///
/// The driver reads one per lab once per run and keeps it for the whole run, so its strings are
/// read as `&'static str` (each kept once, [`kept_str`]), the same type a lab's own `static`
/// description hands out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Description {
    #[serde(deserialize_with = "kept_str")]
    pub name: Kept,
    #[serde(deserialize_with = "kept_str")]
    pub package: Kept,
    #[serde(deserialize_with = "kept_str")]
    pub title: Kept,
    #[serde(deserialize_with = "kept_strs")]
    pub implementations: Vec<Kept>,
    pub experiments: Vec<Experiment>,
    /// [`Describe::timing`] for full, quick and smoke runs, in that order.
    pub timing: [Timing; 3],
    pub counted_ops: u64,
    pub cost_buckets: Buckets,
    #[serde(default)]
    pub tools: Vec<Tool>,
    #[serde(default, deserialize_with = "kept_strs")]
    pub quick_selection: Vec<Kept>,
    /// [`Describe::jvm`].
    #[serde(default)]
    pub jvm: Option<JvmBenchmarks>,
    /// [`Describe::claimed_cases`].
    #[serde(default)]
    pub claimed_cases: Vec<ClaimedCase>,
}

const MODES: [RunMode; 3] = [RunMode::Full, RunMode::Quick, RunMode::Smoke];

impl Description {
    /// What `lab` says about itself.
    pub fn of(lab: &dyn Describe) -> Self {
        Self {
            name: lab.name(),
            package: lab.package(),
            title: lab.title(),
            implementations: lab.implementations(),
            experiments: lab.experiments().to_vec(),
            timing: MODES.map(|mode| lab.timing(mode)),
            counted_ops: lab.counted_ops(),
            cost_buckets: lab.cost_buckets(),
            tools: lab.tools(),
            quick_selection: lab.quick_selection(),
            jvm: lab.jvm(),
            claimed_cases: lab.claimed_cases(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a description serialises")
    }

    /// A description printed by a lab's binary, or what is wrong with it.
    pub fn parse(json: &str) -> Result<Self, String> {
        serde_json::from_str(json).map_err(|e| format!("unreadable lab description: {e}"))
    }
}

impl Describe for Description {
    fn name(&self) -> &'static str {
        self.name
    }
    fn package(&self) -> &'static str {
        self.package
    }
    fn title(&self) -> &'static str {
        self.title
    }
    fn implementations(&self) -> Vec<&'static str> {
        self.implementations.clone()
    }
    fn experiments(&self) -> &[Experiment] {
        &self.experiments
    }
    fn timing(&self, mode: RunMode) -> Timing {
        let at = match mode {
            RunMode::Full => 0,
            RunMode::Quick => 1,
            RunMode::Smoke => 2,
        };
        self.timing[at]
    }
    fn counted_ops(&self) -> u64 {
        self.counted_ops
    }
    fn cost_buckets(&self) -> Buckets {
        self.cost_buckets.clone()
    }
    fn tools(&self) -> Vec<Tool> {
        self.tools.clone()
    }
    fn quick_selection(&self) -> Vec<&'static str> {
        self.quick_selection.clone()
    }
    fn jvm(&self) -> Option<JvmBenchmarks> {
        self.jvm.clone()
    }

    fn claimed_cases(&self) -> Vec<ClaimedCase> {
        self.claimed_cases.clone()
    }
}

/// A `&'static str` that a description read by the driver keeps ([`kept_str`]). The alias also
/// keeps serde from borrowing it from the input, which it does for every field spelled `&str`.
pub type Kept = &'static str;

/// A string read from a description, kept for the rest of the process: descriptions are read
/// once per lab and per run, so what is kept is bounded by the labs' vocabularies.
pub(crate) fn kept_str<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    String::deserialize(d).map(keep)
}

pub(crate) fn kept_strs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<&'static str>, D::Error> {
    Vec::<String>::deserialize(d).map(|v| v.into_iter().map(keep).collect())
}

fn keep(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::TINY;

    #[test]
    fn a_description_reads_back_as_it_was_written() {
        let written = Description::of(&TINY);
        let read = Description::parse(&written.to_json()).unwrap();
        assert_eq!(read, written);
        for mode in MODES {
            assert_eq!(read.timing(mode), TINY.timing(mode));
        }
        assert_eq!(read.cost_buckets(), TINY.cost_buckets());
        assert_eq!(read.experiments(), TINY.experiments());
        assert_eq!(read.quick_selection(), TINY.quick_selection());
        assert_eq!(read.jvm(), TINY.jvm());
        assert!(Description::parse("{\"name\": 1}").is_err());
    }
}
