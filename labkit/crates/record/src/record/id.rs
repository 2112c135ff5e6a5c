//! The id every record joins on.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What an id's cell measures besides its implementation's own code. On the wire (JSON, the
/// command line, gungraun ids) it is a suffix of the implementation part, which only
/// [`BenchId`]'s `Display` and `FromStr` write and read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// The implementation itself.
    Design,
    /// The A/A twin: the implementation again, opened as a second, separately placed instance
    /// and measured as if it were another design (`<implementation>-again`).
    Twin,
    /// The implementation with this many percent added to each of its samples
    /// (`<implementation>-slowed-<percent>`; [`crate::record::SLOWED_BY`]).
    Slowed(u32),
    /// The per-pair ratio of the implementation to the named one (`<implementation>-vs-<a>`;
    /// `cargo xtask compare`).
    RatioTo(String),
}

const TWIN_SUFFIX: &str = "-again";
const SLOWED_SUFFIX: &str = "-slowed-";
const RATIO_INFIX: &str = "-vs-";

impl Role {
    /// The implementation part of an id: `implementation` with this role's suffix.
    pub fn cell_name(&self, implementation: &str) -> String {
        match self {
            Role::Design => implementation.to_owned(),
            Role::Twin => format!("{implementation}{TWIN_SUFFIX}"),
            Role::Slowed(percent) => format!("{implementation}{SLOWED_SUFFIX}{percent}"),
            Role::RatioTo(a) => format!("{implementation}{RATIO_INFIX}{a}"),
        }
    }

    /// Whether `name` would read as another cell's role on the wire (`base-again`, `a-vs-b`,
    /// `fast-slowed-5`): no design may be named so.
    pub fn spelled_in(name: &str) -> bool {
        Self::parse(name).1 != Role::Design
    }

    /// The implementation and role an id's implementation part names.
    fn parse(name: &str) -> (&str, Role) {
        if let Some(implementation) = name.strip_suffix(TWIN_SUFFIX) {
            return (implementation, Role::Twin);
        }
        if let Some((implementation, percent)) = name.rsplit_once(SLOWED_SUFFIX)
            && let Ok(percent) = percent.parse()
        {
            return (implementation, Role::Slowed(percent));
        }
        if let Some((implementation, a)) = name.split_once(RATIO_INFIX) {
            return (implementation, Role::RatioTo(a.to_owned()));
        }
        (name, Role::Design)
    }
}

/// `<experiment>/<implementation>/<parameter>`, e.g. `admission/topic-mutex/shared-2`, with the
/// cell's [`Role`] (`admission/topic-mutex-again/shared-2` is the A/A twin's).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct BenchId {
    pub experiment: String,
    /// The implementation whose code the cell runs: a design's name or the harness floor's.
    pub implementation: String,
    pub parameter: String,
    pub role: Role,
}

impl BenchId {
    /// The id of `implementation` itself on a case.
    pub fn new(experiment: &str, implementation: &str, parameter: &str) -> Self {
        Self {
            experiment: experiment.to_owned(),
            implementation: implementation.to_owned(),
            parameter: parameter.to_owned(),
            role: Role::Design,
        }
    }

    /// The id whose implementation part is spelled `cell` on the wire (`base-again` is `base`'s
    /// A/A twin).
    pub fn spelled(experiment: &str, cell: &str, parameter: &str) -> Self {
        let (implementation, role) = Role::parse(cell);
        Self::new(experiment, implementation, parameter).with_role(role)
    }

    /// The same implementation and case in `role`.
    pub fn with_role(&self, role: Role) -> Self {
        Self {
            role,
            ..self.clone()
        }
    }

    /// The same cell (implementation and role) on another case: where a record derived from this
    /// one goes.
    pub fn with_case(&self, experiment: &str, parameter: &str) -> Self {
        Self {
            experiment: experiment.to_owned(),
            parameter: parameter.to_owned(),
            ..self.clone()
        }
    }

    /// Whether the cell is the implementation itself (not a twin or a ratio).
    pub fn is_design(&self) -> bool {
        self.role == Role::Design
    }

    /// The implementation part as ids spell it: the implementation with its role's suffix.
    pub fn cell_name(&self) -> String {
        self.role.cell_name(&self.implementation)
    }
}

/// By experiment, then the implementation part as spelled (role suffix included), then parameter:
/// the order result files and appendices have always listed ids in.
impl Ord for BenchId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.experiment, self.cell_name(), &self.parameter).cmp(&(
            &other.experiment,
            other.cell_name(),
            &other.parameter,
        ))
    }
}

impl PartialOrd for BenchId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for BenchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.experiment,
            self.cell_name(),
            self.parameter
        )
    }
}

impl FromStr for BenchId {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split('/').collect();
        match parts.as_slice() {
            [e, i, p] if !e.is_empty() && !i.is_empty() && !p.is_empty() => {
                Ok(Self::spelled(e, i, p))
            }
            _ => Err(format!(
                "bench id `{s}` is not of the form <experiment>/<implementation>/<parameter>"
            )),
        }
    }
}

impl TryFrom<String> for BenchId {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<BenchId> for String {
    fn from(id: BenchId) -> String {
        id.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_spells_a_role_is_told_apart_from_a_design_s() {
        for role in ["base-again", "base-slowed-5", "a-vs-b"] {
            assert!(Role::spelled_in(role), "{role}");
        }
        for design in ["base", "slowed-queue", "again-and-again-map", "vs-map"] {
            assert!(!Role::spelled_in(design), "{design}");
        }
    }
}
