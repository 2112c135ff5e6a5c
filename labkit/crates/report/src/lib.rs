//! The lab kit's report building blocks. Every layer below is re-exported at this crate's root.
//!
//! - [`report`]: rows, cells and the comparisons a page prints, charts of lines.
//! - [`rows`]: a lab's rows from its description.
//! - [`travel`]: a run checked against the last committed one.
//! - [`targets`]: targets a lab states in a JSON file, checked against one run.
//! - [`resolution`]: what a run could resolve (its slowed twins' detection) and what it ran again,
//!   for every report's trust section.

// The description, measurement, records and statistics below the report, by name.
pub use labkit_measure::{
    affinity, alloc, args, callgrind, chart, compare, derivation, env, fixture, footprint,
    instruction_benches, jmh, lab, latency, measure, paired, passes, process, record, sampling,
    stats, table, template, threads, tools,
};

pub mod report;
pub mod resolution;
pub mod rows;
pub mod targets;
pub mod travel;
