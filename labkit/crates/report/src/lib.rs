//! The lab kit's report building blocks. Every layer below is re-exported at this crate's root.
//!
//! - [`report`]: rows, cells and the comparisons a page prints, charts of lines.
//! - [`rows`]: a lab's rows from its description.
//! - [`travel`]: a run checked against the last committed one.
//! - [`targets`]: targets a lab states in a JSON file, checked against one run.
//! - [`resolution`]: what a run could resolve (its slowed twins' detection) and what it ran again,
//!   for every report's trust section.

pub use labkit_measure::*;

pub mod report;
pub mod resolution;
pub mod rows;
pub mod targets;
pub mod travel;
