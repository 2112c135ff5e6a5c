//! One pass of the wall-time stage: every implementation × every timed case of the lab's
//! description and the baseline's A/A twin, sampled interleaved; see `labkit::measure::pass_main`.

fn main() {
    labkit::measure::pass_main(&coalesce_lab::lab::LAB);
}
