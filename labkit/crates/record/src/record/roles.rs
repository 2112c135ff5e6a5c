//! The cells measured beside the designs: the reference cells of every row (the baseline's A/A
//! twin and its slowed twins, ids in a [`Role`] other than [`Role::Design`]) and the lab's
//! harness floor.

use super::Role;

/// The name of a lab's harness floor: a reference implementation that does no work behind the
/// lab's trait (it answers something valid cheaply), measured in every stage like a design so
/// that a design's cost can be shown net of the harness. Never a contender: it gets no verdict,
/// no added passes and no correctness suite (it could not pass one).
pub const FLOOR: &str = "harness-floor";

/// Whether `name` is the harness floor's.
pub fn is_floor(name: &str) -> bool {
    name == FLOOR
}

/// The time the slowed twins add to each of the A/A twin's samples, in percent: every row
/// compares the baseline made this much slower (the twin's samples lengthened), so the report can
/// say which differences the run could detect (its power), next to the false-positive rate its
/// A/A twin shows.
pub const SLOWED_BY: [u32; 2] = [5, 10];

/// The reference cells beside the baseline in every row: its A/A twin (measured), then its slowed
/// twins (derived from the twin's samples in each pass).
pub fn reference_roles() -> Vec<Role> {
    std::iter::once(Role::Twin)
        .chain(SLOWED_BY.iter().map(|&p| Role::Slowed(p)))
        .collect()
}

/// Which baseline each implementation's cells are compared with: the lab's own (its first
/// implementation), or for a JVM design the JVM baseline (a verdict never crosses runtimes).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Baselines {
    own: String,
    /// The JVM designs, their baseline first.
    jvm: Vec<String>,
}

impl Baselines {
    /// `own` for every implementation but the JVM designs `jvm`, which have their first.
    pub fn new(own: &str, jvm: &[&str]) -> Self {
        Self {
            own: own.to_owned(),
            jvm: jvm.iter().map(|j| (*j).to_owned()).collect(),
        }
    }

    /// The baseline `implementation` is compared with.
    pub fn of(&self, implementation: &str) -> &str {
        match self.jvm.first() {
            Some(jvm) if self.jvm.iter().any(|j| j == implementation) => jvm,
            _ => &self.own,
        }
    }

    /// Whether `implementation` is a baseline (the lab's or the JVM designs').
    pub fn is_baseline(&self, implementation: &str) -> bool {
        self.of(implementation) == implementation
    }

    /// The lab's baseline, then the JVM designs' when it has any.
    pub fn all(&self) -> Vec<&str> {
        std::iter::once(self.own.as_str())
            .chain(self.jvm.first().map(String::as_str))
            .collect()
    }
}
