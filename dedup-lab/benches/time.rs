//! Wall time per operation (criterion), every implementation × every timed case of the lab's
//! description; see `labkit::measure::time_main`.

fn main() {
    labkit::measure::time_main(&dedup_lab::lab::LAB);
}
