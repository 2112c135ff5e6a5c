//! Shared measurement kit for the lab: everything every lab needs to turn a workload into numbers,
//! written once. A lab names this one crate; the kit is crates in layers, each using only those
//! below it, which the compiler keeps:
//!
//! 1. `labkit-stats`: statistics, formats and probes that know no record ([`stats`], [`table`],
//!    [`template`], [`chart`], [`env`], [`alloc`], [`callgrind`], [`latency`], [`affinity`],
//!    [`tools`]);
//! 2. `labkit-record`: records and ids ([`record`]) and what they say ([`process`], [`compare`],
//!    [`passes`], [`footprint`], [`args`], [`paired`]);
//! 3. `labkit-measure`: a lab's description and its measurement ([`lab`], [`jvm`], [`threads`],
//!    [`sampling`], [`measure`], [`fixture`]), all a bench binary needs;
//! 4. `labkit-report`: report building blocks ([`report`], [`rows`], [`travel`], [`targets`],
//!    [`resolution`]);
//! 5. this crate: answers and pages.
//!
//! This crate's own modules:
//! - [`answers`]: the write-up's claims checked against a run, each difference with its measured
//!   cause.
//! - [`verdicts`]: every report's section on how far its verdicts can be trusted (with its power
//!   and the passes it ran again, [`resolution`]).
//! - [`document`]: a report as a lab declares it ([`document::LabReport`]), assembled by the kit.
//! - [`writeup`]: a PR-ready comparison of two implementations from an existing result set.
//! - [`pages`]: the pages besides the report: a write-up, a paired comparison's page, how
//!   one run's verdicts fared in another.
//! - [`lab_binary`]: the `main` of every lab's `lab` binary, through which the driver reads the
//!   lab's description and derived records and has every page written, without linking it: the
//!   driver renders nothing.
//! - [`testing`]: the conformance kit every lab runs ([`lab_conformance!`]).

// The kit's crates, by name: a lab depends on this one alone.
pub use labkit_report::{
    affinity, alloc, args, callgrind, chart, compare, derivation, env, fixture, footprint,
    instruction_benches, jmh, lab, latency, measure, paired, passes, process, record, report,
    report_files, resolution, rows, sampling, stats, table, targets, template, threads, tools,
    travel,
};

pub mod answers;
pub mod document;
pub mod lab_binary;
pub mod pages;
pub mod testing;
pub mod verdicts;
pub mod writeup;
