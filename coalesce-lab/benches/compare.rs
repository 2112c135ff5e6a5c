//! Paired comparison and the sampling protocol for `cargo xtask compare`; see
//! `labkit::measure::compare_main`.

fn main() {
    labkit::measure::compare_main(&coalesce_lab::lab::LAB);
}
