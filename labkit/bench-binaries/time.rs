//! One pass of the wall-time stage: every implementation × every timed case of the lab's
//! description and the baseline's A/A twin, sampled interleaved; see `labkit::measure::pass_main`.
//! Every lab's `time` bench is this file with the lab's `benches/entry.rs`.

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/entry.rs"));

fn main() {
    labkit::measure::pass_main(&LAB);
}
