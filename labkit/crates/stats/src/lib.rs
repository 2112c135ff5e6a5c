//! The lab kit's bottom layer: statistics, formats and probes that know no record.
//!
//! - [`stats`]: medians, order-statistic intervals of a median, the sign test's binomial.
//! - [`table`], [`template`], [`chart`]: markdown tables, page templates, SVG charts.
//! - [`env`]: the environment every result set carries (CPU, cores, rustc, crates, git, date).
//! - [`alloc`]: a counting global allocator (allocations, bytes, live bytes, malloc usable size);
//!   installed only by measurement binaries, never by timing binaries.
//! - [`callgrind`]: where a counted benchmark's instructions are spent, in buckets a lab names.
//! - [`latency`]: per-operation latencies in HdrHistograms, percentiles, the timer's own cost.
//! - [`affinity`]: pinning threads to cores; [`tools`]: where the driver installs its tools.

pub mod affinity;
pub mod alloc;
pub mod callgrind;
pub mod chart;
pub mod env;
pub mod latency;
pub mod stats;
pub mod table;
pub mod template;
pub mod tools;
