//! Shared measurement kit for the lab: everything every lab needs to turn a workload into numbers,
//! written once.
//!
//! In layers, each using only those below it (`tests/layers.rs` fails on a use of one above):
//! statistics, formats and probes ([`stats`], [`table`], [`template`], [`chart`], [`env`],
//! [`alloc`], [`callgrind`], [`latency`]); records and ids ([`record`]); what records say ([`process`],
//! [`compare`], [`passes`], [`footprint`], [`args`], [`paired`]); a lab's description and its
//! measurement ([`lab`], [`jvm`], [`threads`], [`sampling`], [`measure`]); reports ([`report`],
//! [`targets`], [`answers`], [`resolution`], [`verdicts`], [`travel`], [`document`], [`writeup`],
//! [`lab_binary`], [`testing`]).
//!
//! - [`lab`]: the description each lab gives of itself once (implementations, experiments,
//!   parameters, how a case runs, derived records), which every binary and the driver read.
//! - [`measure`]: the `main` of every measurement binary, generic over a description.
//! - [`jvm`]: a lab's designs written in Java, compiled with the JDK and measured on the JVM in
//!   the same passes as the Rust ones.
//! - [`lab_binary`]: the `main` of every lab's `lab` binary, through which the driver reads the
//!   lab's description, derived records and report without linking it.
//! - [`args`]: the command line every measurement binary accepts.
//! - [`callgrind`]: where a counted benchmark's instructions are spent, in buckets a lab names.
//! - [`alloc`]: a counting global allocator (allocations, bytes, live bytes, malloc usable size);
//!   installed only by measurement binaries, never by timing binaries.
//! - [`footprint`]: retained heap bytes of a built structure (live-bytes delta).
//! - [`latency`]: per-operation latencies in HdrHistograms, percentiles, the timer's own cost.
//! - [`process`]: the whole process's CPU time and peak resident set, and how much the machine
//!   disturbed a pass (stolen time, involuntary switches, migrations).
//! - [`threads`]: a measured window over several threads (prepare, open, run, close).
//! - [`stats`]: medians, order-statistic intervals of a median, the sign test's binomial.
//! - [`record`]: `<experiment>/<implementation>/<parameter>` ids and the reference cells' names
//!   (A/A and slowed twins), metric records and result sets serialised to JSON, written
//!   atomically.
//! - [`env`]: the environment every result set carries (CPU, cores, rustc, crates, git, date).
//! - [`answers`]: the write-up's claims checked against a run, each difference with its measured
//!   cause.
//! - [`compare`]: ratios and the faster / slower / same (±δ) / unstable / inconclusive verdict,
//!   pass by pass, with the ratio's interval.
//! - [`passes`]: which passes a run repeats with the same seed (outliers, disturbed passes) or
//!   adds (undecided cells), and what a repeat shows: the placement or the machine.
//! - [`verdicts`]: every report's section on how far its verdicts can be trusted;
//!   [`resolution`]: its power (slowed twins) and the passes it ran again.
//! - [`paired`]: interleaved A/B timing and the per-pair ratio, for `cargo xtask compare`.
//! - [`sampling`]: samplers per case, in-process interleaving, and a line protocol serving them
//!   to `cargo xtask compare --rev`.
//! - [`targets`]: targets a lab states in a JSON file, checked against one run.
//! - [`writeup`]: a PR-ready comparison of two implementations from an existing result set.
//! - [`testing`]: the conformance kit every lab runs ([`lab_conformance!`]) and a fixture lab.
//! - [`table`], [`report`], [`chart`]: markdown tables, report building blocks and templates,
//!   SVG charts; [`document`]: a report as a lab declares it ([`document::LabReport`]), assembled
//!   by the kit.

pub mod affinity;
pub mod alloc;
pub mod answers;
pub mod args;
pub mod callgrind;
pub mod chart;
pub mod compare;
pub mod document;
pub mod env;
pub mod footprint;
pub mod jvm;
pub mod lab;
pub mod lab_binary;
pub mod latency;
pub mod measure;
pub mod paired;
pub mod passes;
pub mod process;
pub mod record;
pub mod report;
pub mod resolution;
pub mod rows;
pub mod sampling;
pub mod stats;
pub mod table;
pub mod targets;
pub mod template;
pub mod testing;
pub mod threads;
pub mod tools;
pub mod travel;
pub mod verdicts;
pub mod writeup;
