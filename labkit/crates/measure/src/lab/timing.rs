//! How a lab's wall-time stage samples it, per run mode.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::record::RunMode;

/// How the wall-time stage samples one lab in one run mode (see [`crate::measure::pass_main`]).
///
/// A run is `passes` separate processes, each linked with its own code order and started with its
/// own stack and heap offsets and case order; in each, every cell of a row (the row's
/// implementations and the baseline's A/A twin) is sampled `rounds` times, interleaved, each
/// sample at least `sample` long. A cell's value in a pass is the median of its samples; verdicts
/// are taken across passes ([`crate::compare`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    pub passes: usize,
    /// Passes a cell still undecided after `passes` gets in all, on its cases only
    /// ([`crate::compare::agreeing_needed`]); `passes` for none.
    pub extended_passes: usize,
    pub rounds: usize,
    pub sample: Duration,
    /// Operations in the allocation run of a steady case (within the experiment's cap, at least
    /// the parameter's minimum).
    pub profile_ops: u64,
}

impl Timing {
    /// The kit's settings: eight passes in a full run (a verdict then needs eight of eight, a
    /// nominal false-positive rate of 2/2⁸ = 0.8 % per cell), and eight more for the cases still
    /// undecided (15 of 16, 0.81 % over the sequence); six in a quick one (3.1 %), and two
    /// single-sample passes in a smoke run, which only proves the pipeline runs.
    pub fn standard(mode: RunMode) -> Self {
        match mode {
            RunMode::Full => Self {
                passes: crate::compare::STANDARD_PASSES,
                extended_passes: 2 * crate::compare::STANDARD_PASSES,
                rounds: 9,
                sample: Duration::from_millis(3),
                profile_ops: 200_000,
            },
            RunMode::Quick => Self {
                passes: 6,
                extended_passes: 6,
                rounds: 5,
                sample: Duration::from_millis(1),
                profile_ops: 20_000,
            },
            RunMode::Smoke => Self {
                passes: 2,
                extended_passes: 2,
                rounds: 1,
                sample: Duration::ZERO,
                profile_ops: 1_000,
            },
        }
    }
}
