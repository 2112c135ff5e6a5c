//! The id every record joins on.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// `<experiment>/<implementation>/<parameter>`, e.g. `admission/topic-mutex/shared-2`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct BenchId {
    pub experiment: String,
    pub implementation: String,
    pub parameter: String,
}

impl BenchId {
    pub fn new(experiment: &str, implementation: &str, parameter: &str) -> Self {
        Self {
            experiment: experiment.to_owned(),
            implementation: implementation.to_owned(),
            parameter: parameter.to_owned(),
        }
    }
}

impl fmt::Display for BenchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.experiment, self.implementation, self.parameter
        )
    }
}

impl FromStr for BenchId {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split('/').collect();
        match parts.as_slice() {
            [e, i, p] if !e.is_empty() && !i.is_empty() && !p.is_empty() => Ok(Self::new(e, i, p)),
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
