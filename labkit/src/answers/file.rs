//! The answers file's format: a lab's claims, the pairs and JVM designs that answer them, and the
//! causes (with their evidence and the directions they explain) that may explain a difference.

use serde::Deserialize;

use crate::lab::PublishedFigure;

/// The write-up's Java designs as the lab runs them on the JVM, and the Rust designs beside them.
#[derive(Debug, Clone, Deserialize)]
pub struct JvmSide {
    /// The JVM design standing for the write-up's "before" and the one for its "after".
    pub old: String,
    pub new: String,
    /// Each Rust model of a Java design, with its JVM original: calibrated on every claim.
    pub models: Vec<Model>,
    /// The Rust designs each claim shows the best of (the models and the lab's own).
    pub rust: Vec<String>,
    /// What the Rust designs add, one sentence for the verdict paragraph, citing this run's
    /// values with the template value functions ([`crate::template`]).
    pub adds: String,
    /// What this machine cannot show of the write-up's setting, one sentence, cited the same way.
    pub cannot_show: String,
    /// What the lab decided about its models from their calibration: kept, mended or retired.
    pub decision: String,
    /// The lab's JMH benchmarks and JOL weighings ([`crate::lab::Describe::jvm`]), which its
    /// report hands the answers so each row can name what measured it.
    #[serde(skip)]
    pub benchmarks: Option<crate::lab::JvmBenchmarks>,
}

/// How a lab counts the requests its load runs failed, and the write-up's own failure rate.
#[derive(Debug, Clone, Deserialize)]
pub struct Failures {
    /// Metric keys of failed requests per 100 requests (`events-per100-ops(refused-503)`),
    /// summed.
    pub metrics: Vec<String>,
    /// The share of requests the write-up's runs failed, in percent (k6's `http_req_failed`).
    pub published_percent: f64,
}

/// A Rust design written to behave as a Java one, and that Java design on the JVM.
#[derive(Debug, Clone, Deserialize)]
pub struct Model {
    pub model: String,
    pub original: String,
}

/// The design standing for the write-up's "before" and the one for its "after".
#[derive(Debug, Clone, Deserialize)]
pub struct Pair {
    pub old: String,
    pub new: String,
    /// What the pair is, for the column heading.
    pub label: String,
}

/// Which way a claim says the "after" design moves the metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Lower,
    Higher,
    Same,
}

/// One claim of the write-up.
#[derive(Debug, Deserialize)]
pub struct Claim {
    pub claim: String,
    /// The published figures, when the claim has them.
    #[serde(default)]
    pub published: Option<PublishedFigure>,
    /// The claim's direction when it has no figures (an argument, not a table row).
    #[serde(default)]
    pub expect: Option<Direction>,
    /// The claim in the write-up's words, when it has no figures.
    #[serde(default)]
    pub published_text: Option<String>,
    /// A [`Metric::key`].
    pub metric: String,
    pub experiment: String,
    pub parameter: String,
    /// The smallest difference the claim's metric can mean, in its unit (half a body for a heap
    /// counted in bodies): measured values closer than this compare `same`. For values measured
    /// once, whose every difference would otherwise read as a direction.
    #[serde(default)]
    pub resolution: Option<f64>,
    /// Pairs for this claim instead of the file's.
    #[serde(default)]
    pub pairs: Option<Vec<Pair>>,
    #[serde(default)]
    pub causes: Vec<Cause>,
    /// A question of the lab's own, not the write-up's: answered in a table of its own.
    #[serde(default)]
    pub own: bool,
    /// A claim about the requests served (their latency, their queue, their rate): a design
    /// that failed more requests than the write-up's runs did cannot reproduce it
    /// ([`Failures`]).
    #[serde(default)]
    pub served: bool,
    /// Why the lab cannot measure this claim, when it cannot.
    #[serde(default)]
    pub unmeasurable: Option<String>,
}

/// Why pair `pair` (an index into the claim's pairs) differs from the write-up, if `evidence` holds;
/// with a JVM side, why the JVM here moved `explains` where the write-up moved otherwise.
#[derive(Debug, Deserialize)]
pub struct Cause {
    #[serde(default)]
    pub pair: usize,
    /// The directions of the pair's (or the JVM's) verdict the cause explains: it is shown only
    /// beside a verdict that moved one of these ways, so a sentence about a loss cannot print
    /// beside a gain when the numbers flip.
    #[serde(default)]
    pub explains: Explains,
    /// A template: `{{ v(REF) }}` and `{{ ratio(REF, REF) }}` print measured values and their ratio.
    pub text: String,
    pub evidence: Vec<Evidence>,
}

/// One way a verdict went or several (`"lower"`, `["lower", "same"]`, `"unstable"`: the run
/// could not tell); none when a file leaves it out, which parsing refuses.
#[derive(Debug, Default, Deserialize)]
#[serde(from = "OneOrMany")]
pub struct Explains(pub Vec<Went>);

/// Which way a verdict went: a direction, or `unstable` when the passes could not tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Went {
    Lower,
    Higher,
    Same,
    Unstable,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(Went),
    Many(Vec<Went>),
}

impl From<OneOrMany> for Explains {
    fn from(value: OneOrMany) -> Self {
        match value {
            OneOrMany::One(w) => Self(vec![w]),
            OneOrMany::Many(w) => Self(w),
        }
    }
}

impl Explains {
    /// Whether a verdict that moved `direction` (`None`: could not tell) is one this explains.
    pub fn covers(&self, direction: Option<Direction>) -> bool {
        let went = match direction {
            Some(Direction::Lower) => Went::Lower,
            Some(Direction::Higher) => Went::Higher,
            Some(Direction::Same) => Went::Same,
            None => Went::Unstable,
        };
        self.0.contains(&went)
    }
}

/// A condition on measured values: `value` (or `value / over`) at least / at most a bound.
#[derive(Debug, Deserialize)]
pub struct Evidence {
    pub value: String,
    #[serde(default)]
    pub over: Option<String>,
    #[serde(default)]
    pub at_least: Option<f64>,
    #[serde(default)]
    pub at_most: Option<f64>,
}
