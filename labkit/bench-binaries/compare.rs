//! Paired comparison and the sampling protocol for `cargo xtask compare`; see
//! `labkit::measure::compare_main`. Every lab's `compare` bench is this file with the lab's
//! `benches/entry.rs`.

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/entry.rs"));

fn main() {
    labkit::measure::compare_main(&LAB);
}
