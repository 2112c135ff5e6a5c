//! How the driver reads a lab without linking it: its description, derived records and report;
//! see `labkit::lab_binary`. Every lab's `lab` bench is this file with the lab's
//! `benches/entry.rs`.

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/entry.rs"));

fn main() {
    labkit::lab_binary::lab_main(&LAB);
}
