//! The lab kit's measurement: what a bench binary links, and no report code. Every layer below is
//! re-exported at this crate's root.
//!
//! - [`lab`]: the description each lab gives of itself once (implementations, experiments,
//!   parameters, how a case runs, derived records), which every binary and the driver read.
//! - [`jmh`]: JMH's and JOL's output read into records: the write-up's Java benchmarks, which the
//!   driver runs ([`lab::JvmBenchmarks`]).
//! - [`threads`]: a measured window over several threads (prepare, open, run, close).
//! - [`sampling`]: samplers per case, in-process interleaving, and a line protocol serving them
//!   to `cargo xtask compare --rev`.
//! - [`measure`]: the `main` of every measurement binary, generic over a description.
//! - [`fixture`]: a two-design lab whose runners take no time, for the tests of every layer above.

// The records and statistics below the measurement, by name.
pub use labkit_record::{
    affinity, alloc, args, callgrind, chart, compare, derivation, env, footprint, latency, paired,
    passes, process, record, stats, table, template, tools,
};

pub mod fixture;
pub mod jmh;
pub mod lab;
pub mod measure;
pub mod sampling;
pub mod threads;
