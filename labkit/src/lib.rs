//! Shared measurement kit for the lab: everything that both labs (dedup, pending-ack) need
//! to turn a workload into numbers, written once.
//!
//! - [`args`]: the command line every measurement binary accepts.
//! - [`alloc`]: a counting global allocator (allocations, bytes, live bytes, malloc usable size);
//!   installed only by measurement binaries, never by timing binaries.
//! - [`footprint`]: retained heap bytes of a built structure (live-bytes delta).
//! - [`record`]: `<experiment>/<implementation>/<parameter>` ids, metric records and result sets
//!   serialised to JSON, written atomically.
//! - [`env`]: the environment every result set carries (CPU, cores, rustc, crates, git, date).
//! - [`compare`]: ratios and the faster / slower / inconclusive verdict.
//! - [`paired`]: interleaved A/B timing and the per-pair ratio, for `cargo xtask compare`.
//! - [`sampling`]: the labs' `compare` binaries: samplers per case, in-process interleaving, and
//!   a line protocol serving them to `cargo xtask compare --rev`.
//! - [`table`]: a markdown table renderer.

pub mod alloc;
pub mod args;
pub mod compare;
pub mod env;
pub mod footprint;
pub mod paired;
pub mod record;
pub mod sampling;
pub mod table;
