//! The lab kit's records and what they say. Every layer below is re-exported at this crate's root,
//! so `crate::stats` names the same module here as in `labkit-stats`.
//!
//! - [`record`]: `<experiment>/<implementation>/<parameter>` ids and the reference cells' names
//!   (A/A and slowed twins), metric records and result sets serialised to JSON, written
//!   atomically.
//! - [`process`]: the whole process's CPU time and peak resident set, and how much the machine
//!   disturbed a pass (stolen time, involuntary switches, migrations).
//! - [`compare`]: ratios and the faster / slower / same (±δ) / unstable / inconclusive verdict,
//!   pass by pass, with the ratio's interval.
//! - [`passes`]: which passes a run repeats with the same seed (outliers, disturbed passes) or
//!   adds (undecided cells), and what a repeat shows: the placement or the machine.
//! - [`derivation`]: records a lab derives from measured ones, declared as a list.
//! - [`footprint`]: retained heap bytes of a built structure (live-bytes delta).
//! - [`args`]: the command line every measurement binary accepts.
//! - [`paired`]: interleaved A/B timing and the per-pair ratio, for `cargo xtask compare`.

// The statistics below the records, by name: what a record's user reaches through this crate.
pub use labkit_stats::{
    affinity, alloc, callgrind, chart, env, latency, stats, table, template, tools,
};

pub mod args;
pub mod compare;
pub mod derivation;
pub mod footprint;
pub mod paired;
pub mod passes;
pub mod process;
pub mod record;
