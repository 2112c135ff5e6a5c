//! Wall time per operation (criterion), every implementation × every timed case of the lab's
//! description; see `labkit::measure::time_main`.

fn main() {
    labkit::measure::time_main(&pending_ack_lab::lab::LAB);
}
