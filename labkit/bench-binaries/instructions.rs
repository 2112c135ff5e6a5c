//! Instructions per operation (callgrind through gungraun), deterministic, so it is the metric a
//! regression gate can use on a noisy machine: one function per implementation of the lab's
//! list, one bench per counted case of its description; see `labkit::instruction_benches!`.
//! Every lab's `instructions` bench is this file with the lab's `benches/entry.rs`.

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/entry.rs"));

macro_rules! benches {
    ($($list:tt)*) => {
        labkit::instruction_benches!(LAB; $($list)*);
    };
}
with_implementations!(benches);
